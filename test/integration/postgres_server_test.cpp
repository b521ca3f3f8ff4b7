// SPDX-License-Identifier: Apache-2.0
// The private PostgreSQL server of test/support: it starts, answers, keeps its data and port
// across a restart, and several run at once.
#include "postgres_server.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

namespace distlock::testing {
namespace {

std::string parent_of(const std::string& pid) {
  std::ifstream status("/proc/" + pid + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("PPid:", 0) == 0) return line.substr(line.find_first_not_of(" \t", 5));
  }
  return {};
}

TEST(PostgresServer, AnswersAQueryAndLeavesNothingBehind) {
  std::filesystem::path directory;
  {
    PostgresServer server;
    directory = server.directory();
    EXPECT_EQ(server.url(),
              "postgresql://distlock@127.0.0.1:" + std::to_string(server.port()) + "/postgres");
    EXPECT_EQ(server.psql("SELECT 1"), "1");
    EXPECT_EQ(server.psql("SELECT current_user"), "distlock");
    // pid() is what tests freeze or kill: the postmaster, whose children the server's processes
    // are. The checkpointer lives as long as the server; a query's own backend would be gone
    // with its connection by the time its parent is read.
    EXPECT_EQ(parent_of(server.psql(
                  "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'")),
              std::to_string(server.pid()));
    EXPECT_EQ(server.psql("SELECT 1 WHERE false"), "");
    EXPECT_THROW(server.psql("SELECT * FROM no_such_table"), std::runtime_error);
  }
  EXPECT_FALSE(std::filesystem::exists(directory)) << directory;
}

TEST(PostgresServer, RestartKeepsTheDataAndThePort) {
  PostgresServer server;
  const auto port = server.port();
  const int first_pid = server.pid();
  server.psql("CREATE TABLE kept (value text)");
  server.psql("INSERT INTO kept VALUES ('before the restart')");

  server.restart();

  EXPECT_EQ(server.port(), port);
  EXPECT_NE(server.pid(), first_pid);
  EXPECT_EQ(server.psql("SELECT value FROM kept"), "before the restart");
}

TEST(PostgresServer, TwoRunAtOnceOnDifferentPorts) {
  PostgresServer first;
  PostgresServer second;
  EXPECT_NE(first.port(), second.port());
  first.psql("CREATE TABLE only_in_first (value int)");
  EXPECT_EQ(first.psql("SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_first'"), "1");
  EXPECT_EQ(second.psql("SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_first'"), "0");
}

}  // namespace
}  // namespace distlock::testing
