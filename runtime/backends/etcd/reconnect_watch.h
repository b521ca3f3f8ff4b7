// SPDX-License-Identifier: Apache-2.0
// Keeps a member's channel connecting after a call found it unavailable. gRPC (1.51) advances
// a connection attempt only while some thread polls the channel: a call that fails fast while
// the channel is in TRANSIENT_FAILURE does not, and the channel's own backup poller runs every
// 5 s, so a member back from an outage was reached 5 to 10 s late (its TCP connect and its
// HTTP/2 handshake each waiting for that poller). One thread per client, started by the first
// unavailable member, polls the channels it was given until each is READY again.
#pragma once

#include <grpcpp/grpcpp.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace distlock::detail::etcd {

class ReconnectWatch {
 public:
  ReconnectWatch() = default;
  // Stops polling (within one slice of it) and joins the thread.
  ~ReconnectWatch();
  ReconnectWatch(const ReconnectWatch&) = delete;
  ReconnectWatch& operator=(const ReconnectWatch&) = delete;

  // Polls `channel` until it is READY (or shut down).
  void watch(const std::shared_ptr<grpc::Channel>& channel);

 private:
  void poll_until_ready();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::shared_ptr<grpc::Channel>> watched_;  // under mutex_
  bool stopping_ = false;                                // under mutex_
  std::thread thread_;                                   // started by the first watch()
};

}  // namespace distlock::detail::etcd
