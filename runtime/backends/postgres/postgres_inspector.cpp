// SPDX-License-Identifier: Apache-2.0
#include "backends/postgres/postgres_inspector.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <distlock/error.h>

#include "backends/postgres/connection.h"
#include "backends/postgres/force_release.h"
#include "backends/postgres/lock_listing.h"
#include "backends/postgres/settings.h"

namespace distlock::detail::postgres {
namespace {

// SQLSTATE 42P01: a table the statement names is not in the database.
constexpr std::string_view kUndefinedTable = "42P01";

class PostgresInspector final : public LockInspector {
 public:
  explicit PostgresInspector(PostgresSettings settings)
      : settings_(std::move(settings)), listing_(settings_) {
    try {
      connection_ = std::make_unique<Connection>(settings_, kNoCallerDeadline);
    } catch (const ServerError& error) {
      throw BackendUnavailable("", settings_.server, error.reason());
    }
  }

  std::vector<admin::LockState> list(std::string_view pattern) override {
    try {
      return listing_.list(*connection_, pattern);
    } catch (const ServerError& error) {
      throw_for_lock(error, "");
    }
  }

  std::optional<admin::LockState> show(std::string_view name) override {
    try {
      return listing_.read(*connection_, name);
    } catch (const ServerError& error) {
      throw_for_lock(error, name);
    }
  }

  std::vector<admin::ReleasedHold> force_release(
      std::string_view name, const std::optional<std::string>& acquisition_id) override {
    try {
      return postgres::force_release(*connection_, settings_, std::string(name), acquisition_id);
    } catch (const ServerError& error) {
      throw_for_lock(error, name);
    }
  }

  std::vector<admin::ServerFacts> servers() override {
    const Statement version{"distlock_admin_server_version",
                            "SELECT current_setting('server_version')"};
    admin::ServerFacts facts;
    facts.server = settings_.server;
    facts.kind = "postgresql";
    try {
      const Result result = connection_->run(version, {});
      if (PQntuples(result.get()) == 1) facts.version = PQgetvalue(result.get(), 0, 0);
    } catch (const ServerError& error) {
      throw_for_lock(error, "");
    }
    facts.eviction = admin::EvictionRisk::not_applicable;
    facts.reason = "PostgreSQL evicts nothing: a lock is a row of the lock table " +
                   settings_.table +
                   ", kept until its holder releases it or its expiry passes by the server's clock";
    return {facts};
  }

  const std::string& server() const override { return settings_.server; }

 private:
  // A statement the server refused is an Error naming the lock (a missing lock table a
  // ConfigError, saying which); a failed exchange is BackendUnavailable.
  [[noreturn]] void throw_for_lock(const ServerError& error, std::string_view lock) const {
    if (error.sqlstate() == kUndefinedTable)
      throw ConfigError(std::string(lock), settings_.server,
                        "no lock table " + settings_.table + " (and " + settings_.holds_table +
                            ") in this database: the URL names another database or lock_table "
                            "than the clients use, or no client has connected with it yet (" +
                            error.reason() + ")");
    if (error.refused()) throw Error(std::string(lock), settings_.server, error.reason());
    throw BackendUnavailable(std::string(lock), settings_.server, error.reason());
  }

  const PostgresSettings settings_;
  const LockListing listing_;
  std::unique_ptr<Connection> connection_;
};

}  // namespace

std::unique_ptr<LockInspector> make_inspector(std::string_view url, const Options& options) {
  return std::make_unique<PostgresInspector>(postgres_settings(url, options));
}

}  // namespace distlock::detail::postgres
