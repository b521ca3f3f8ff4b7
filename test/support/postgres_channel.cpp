// SPDX-License-Identifier: Apache-2.0
#include "postgres_channel.h"

#include <libpq-fe.h>
#include <poll.h>

#include <memory>
#include <stdexcept>
#include <utility>

#include "postgres_server.h"

namespace distlock::testing {
namespace {

using Clock = std::chrono::steady_clock;

std::string quoted_identifier(PGconn* connection, const std::string& name) {
  const std::unique_ptr<char, decltype(&::PQfreemem)> quoted(
      ::PQescapeIdentifier(connection, name.c_str(), name.size()), &::PQfreemem);
  if (quoted == nullptr) throw std::runtime_error("cannot quote " + name);
  return quoted.get();
}

}  // namespace

PostgresChannel::PostgresChannel(const PostgresServer& server, std::string channel)
    : channel_(std::move(channel)),
      where_("PostgreSQL on port " + std::to_string(server.port())),
      connection_(::PQconnectdb((server.url() + "?connect_timeout=10").c_str()), &::PQfinish) {
  if (connection_ == nullptr || ::PQstatus(connection_.get()) != CONNECTION_OK) {
    throw std::runtime_error("cannot connect to " + where_ + ": " +
                             (connection_ ? ::PQerrorMessage(connection_.get()) : "no memory"));
  }
  run("LISTEN " + quoted_identifier(connection_.get(), channel_));
}

PostgresChannel::~PostgresChannel() = default;

void PostgresChannel::run(const std::string& sql) {
  const std::unique_ptr<PGresult, decltype(&::PQclear)> result(
      ::PQexec(connection_.get(), sql.c_str()), &::PQclear);
  if (::PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
    throw std::runtime_error(where_ + ": " + sql + ": " + ::PQerrorMessage(connection_.get()));
  }
}

void PostgresChannel::send(const std::string& payload) {
  const std::unique_ptr<char, decltype(&::PQfreemem)> literal(
      ::PQescapeLiteral(connection_.get(), payload.c_str(), payload.size()), &::PQfreemem);
  if (literal == nullptr) throw std::runtime_error("cannot quote " + payload);
  run("NOTIFY " + quoted_identifier(connection_.get(), channel_) + ", " + literal.get());
}

std::string PostgresChannel::next(std::chrono::milliseconds limit) {
  const auto until = Clock::now() + limit;
  for (;;) {
    if (::PQconsumeInput(connection_.get()) != 1) {
      throw std::runtime_error(where_ + ": listening on " + channel_ + ": " +
                               ::PQerrorMessage(connection_.get()));
    }
    if (const std::unique_ptr<PGnotify, decltype(&::PQfreemem)> notification(
            ::PQnotifies(connection_.get()), &::PQfreemem);
        notification != nullptr) {
      return notification->extra;
    }
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now());
    if (left.count() <= 0) {
      throw std::runtime_error(where_ + ": no notification on " + channel_ + " within " +
                               std::to_string(limit.count()) + " ms");
    }
    pollfd readable{::PQsocket(connection_.get()), POLLIN, 0};
    (void)::poll(&readable, 1, static_cast<int>(left.count()));
  }
}

}  // namespace distlock::testing
