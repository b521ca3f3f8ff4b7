// SPDX-License-Identifier: Apache-2.0
// Owner tokens: who holds a lock, for reentrancy. A server lets an acquisition re-enter a lock
// only under the owner token its hold was taken with, so the token names the holder, not just
// the thread: "<instance id>:<thread number>.<handovers>". The instance id is random (128 bits);
// the thread number is never reused, so a thread that exits while holding a lock cannot hand
// its ownership to a new thread; the handovers count the leases the thread acquired and then
// moved away (Lease's move), so that its next acquisitions hold under a token of their own and
// can never match, re-enter or take over a hold that another thread now works under.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace distlock::detail {

// 32 hex digits from the system's random source.
std::string make_instance_id();

// The token of one asynchronous acquisition, "<instance id>:a<serial>": it belongs to no
// thread, so it re-enters nothing and nothing re-enters it.
std::string async_owner_token(const std::string& instance_id, std::uint64_t serial);

// Whether `token` was made by the client instance `instance_id`.
bool token_of_instance(std::string_view token, std::string_view instance_id);

// One thread's owner tokens. Shared with the leases the thread acquires: a lease may be moved
// away on any thread, and after the thread itself has ended.
class ThreadOwner {
 public:
  // The calling thread's.
  static const std::shared_ptr<ThreadOwner>& of_this_thread();

  explicit ThreadOwner(std::uint64_t thread_number) : thread_number_(thread_number) {}

  // The token this thread's new (not reentrant) acquisitions hold under now.
  std::string token(const std::string& instance_id) const;
  // A lease this thread acquired was handed to whoever holds the moved Lease now.
  void handed_over() { handovers_.fetch_add(1, std::memory_order_acq_rel); }

 private:
  const std::uint64_t thread_number_;
  std::atomic<std::uint64_t> handovers_{0};
};

}  // namespace distlock::detail
