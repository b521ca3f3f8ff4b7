// SPDX-License-Identifier: Apache-2.0
#include "backends/etcd/reconnect_watch.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>

namespace distlock::detail::etcd {
namespace {

// How long one channel is polled before the others (and a stop request) get their turn.
constexpr std::chrono::milliseconds kPollSlice{100};

bool settled(grpc_connectivity_state state) {
  return state == GRPC_CHANNEL_READY || state == GRPC_CHANNEL_SHUTDOWN;
}

}  // namespace

ReconnectWatch::~ReconnectWatch() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ReconnectWatch::watch(const std::shared_ptr<grpc::Channel>& channel) {
  {
    const std::lock_guard lock(mutex_);
    if (std::find(watched_.begin(), watched_.end(), channel) != watched_.end()) return;
    watched_.push_back(channel);
    if (!thread_.joinable()) thread_ = std::thread([this] { poll_until_ready(); });
  }
  wake_.notify_all();
}

void ReconnectWatch::poll_until_ready() {
  ::pthread_setname_np(::pthread_self(), "distlock-etcd");
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !watched_.empty(); });
    if (stopping_) return;
    const auto channels = watched_;
    lock.unlock();
    // Waiting for a state change polls the channel: its connection attempt goes on meanwhile.
    for (const auto& channel : channels) {
      const auto state = channel->GetState(/*try_to_connect=*/true);
      if (!settled(state))
        channel->WaitForStateChange(state, std::chrono::system_clock::now() + kPollSlice);
    }
    lock.lock();
    watched_.erase(std::remove_if(watched_.begin(), watched_.end(),
                                  [](const std::shared_ptr<grpc::Channel>& channel) {
                                    return settled(channel->GetState(/*try_to_connect=*/false));
                                  }),
                   watched_.end());
  }
}

}  // namespace distlock::detail::etcd
