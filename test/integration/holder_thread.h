// SPDX-License-Identifier: Apache-2.0
// A thread that holds a lock for a test: it takes the lock as its spec says when constructed,
// and holds it until release() (or destruction). Another owner, even on the caller's client.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <future>
#include <string>
#include <thread>

#include <distlock/distlock.h>

namespace distlock::testing {

class Holder {
 public:
  Holder(Client& client, const LockSpec& spec, const std::string& key)
      : granted_(fence_.get_future().share()),
        done_(released_.get_future().share()),
        thread_([this, &client, spec, key] {
          try {
            Lease lease = client.acquire(spec, key);
            fence_.set_value(lease.fence());
            release_asked_.get_future().wait();
            lease.release();
          } catch (...) {
            fence_.set_exception(std::current_exception());
          }
          released_.set_value();
        }) {}
  ~Holder() {
    release();
    thread_.join();
  }
  Holder(const Holder&) = delete;
  Holder& operator=(const Holder&) = delete;

  bool granted_within(std::chrono::milliseconds limit) const {
    return granted_.wait_for(limit) == std::future_status::ready;
  }
  // Throws what the acquisition threw.
  std::uint64_t fence() const { return granted_.get(); }
  // Returns once the lease is released (or the acquisition failed).
  void release() {
    if (!release_sent_) {
      release_sent_ = true;
      release_asked_.set_value();
    }
    done_.wait();
  }

 private:
  std::promise<std::uint64_t> fence_;
  std::shared_future<std::uint64_t> granted_;
  std::promise<void> release_asked_;
  bool release_sent_ = false;
  std::promise<void> released_;
  std::shared_future<void> done_;
  std::thread thread_;
};

}  // namespace distlock::testing
