// SPDX-License-Identifier: Apache-2.0
// A LISTEN on one channel of a private PostgreSQL server, on a connection of its own, for tests
// that check what a backend notifies: the payloads come out in the order the server sent them.
// A test that wants to show that nothing was sent sends a marker of its own after the
// operations in question, and expects the marker to come first.
#pragma once

#include <chrono>
#include <memory>
#include <string>

struct pg_conn;

namespace distlock::testing {

class PostgresServer;

class PostgresChannel {
 public:
  // Connects and listens; throws std::runtime_error naming the server when either fails.
  PostgresChannel(const PostgresServer& server, std::string channel);
  ~PostgresChannel();
  PostgresChannel(const PostgresChannel&) = delete;
  PostgresChannel& operator=(const PostgresChannel&) = delete;

  // The next notification's payload; throws std::runtime_error when none comes within `limit`
  // or the connection fails.
  std::string next(std::chrono::milliseconds limit);
  // Sends `payload` on the channel (NOTIFY), on this connection.
  void send(const std::string& payload);

 private:
  void run(const std::string& sql);

  const std::string channel_;
  const std::string where_;
  std::unique_ptr<pg_conn, void (*)(pg_conn*)> connection_;
};

}  // namespace distlock::testing
