// SPDX-License-Identifier: Apache-2.0
// The client's asynchronous executor once stopped (core/async_executor.h): a store client's
// callback thread may still post to it while the backend closes, and nothing posted then runs.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <utility>

#include "core/async_executor.h"
#include "util/steady_clock.h"

using namespace std::chrono_literals;
using distlock::detail::AsyncExecutor;
using distlock::detail::SteadyClock;

namespace {

TEST(AsyncExecutor, RunsWhatIsPostedUntilStopped) {
  AsyncExecutor executor;
  std::promise<bool> ran;
  executor.post([&ran, &executor] { ran.set_value(executor.on_its_thread()); });
  EXPECT_TRUE(ran.get_future().get());
}

TEST(AsyncExecutor, AStoppedExecutorDropsWhatIsPostedAtOnce) {
  AsyncExecutor executor;
  executor.stop();
  auto owned = std::make_shared<int>(0);
  executor.post([owned] { ++*owned; });
  executor.post_at(SteadyClock::now(), [owned] { ++*owned; });
  // Dropped by the time post returns: nothing holds the task to run it later.
  EXPECT_EQ(owned.use_count(), 1);
  EXPECT_EQ(*owned, 0);
}

// What a dropped timer owns may post as it goes (a waiter's last reference, say): stop does
// not wait for itself, and the post is dropped too.
TEST(AsyncExecutor, WhatADroppedTaskOwnsMayPostAsItGoes) {
  AsyncExecutor executor;
  auto posted_late = std::make_shared<int>(0);
  class PostsWhenDestroyed {
   public:
    PostsWhenDestroyed(AsyncExecutor& executor, std::shared_ptr<int> owned)
        : executor_(executor), owned_(std::move(owned)) {}
    PostsWhenDestroyed(const PostsWhenDestroyed&) = delete;
    PostsWhenDestroyed& operator=(const PostsWhenDestroyed&) = delete;
    ~PostsWhenDestroyed() {
      executor_.post([owned = owned_] { ++*owned; });
    }

   private:
    AsyncExecutor& executor_;
    std::shared_ptr<int> owned_;
  };
  auto poster = std::make_shared<PostsWhenDestroyed>(executor, posted_late);
  executor.post_at(SteadyClock::now() + 1h, [poster] {});
  poster.reset();
  executor.stop();
  EXPECT_EQ(posted_late.use_count(), 1);
  EXPECT_EQ(*posted_late, 0);
}

}  // namespace
