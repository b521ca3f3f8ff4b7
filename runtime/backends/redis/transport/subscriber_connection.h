// SPDX-License-Identifier: Apache-2.0
// The release listener's own connection: non-blocking, so its one thread can wait on it and
// on wake-up descriptors together with poll(), and stop at once. Carries only pub/sub
// commands, which ignore the database number, so it never sends SELECT.
#pragma once

#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <hiredis/hiredis.h>
#include <hiredis/read.h>

#include "backends/redis/transport/command_encoder.h"

#include "backends/redis/transport/connection_settings.h"
#include "backends/redis/transport/reply.h"
#include "backends/redis/transport/stream.h"
#include "util/steady_clock.h"

namespace distlock::detail::redis {

class SubscriberConnection {
 public:
  // Connects and authenticates within connect_timeout. Returns nullptr when `stop_fd`
  // becomes readable first. Throws ServerError.
  static std::unique_ptr<SubscriberConnection> open(const ConnectionSettings& settings,
                                                    const Address& address, int stop_fd);
  SubscriberConnection(const SubscriberConnection&) = delete;
  SubscriberConnection& operator=(const SubscriberConnection&) = delete;

  int fd() const { return stream_.fd(); }
  // Queues a command and writes as much as the socket takes now.
  void send(std::span<const std::string_view> args);
  // Output is left that the socket did not take yet: poll for POLLOUT.
  bool has_output() const { return has_output_; }
  // When poll() says writable.
  void flush();
  // When poll() says readable: every reply that arrived complete. Throws ServerError when
  // the connection failed or closed.
  std::vector<Reply> receive();

 private:
  struct ReaderFree {
    void operator()(redisReader* reader) const { redisReaderFree(reader); }
  };

  SubscriberConnection(const ConnectionSettings& settings, Stream stream);
  [[noreturn]] void fail(std::string reason) const;

  std::string server_;
  Stream stream_;
  std::unique_ptr<redisReader, ReaderFree> reader_;
  CommandEncoder encoder_;
  std::string output_;  // written as far as the socket took it
  bool has_output_ = false;
};

}  // namespace distlock::detail::redis
