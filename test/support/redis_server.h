// A private redis-server for tests and benchmarks: started on a free loopback port in a
// temporary directory, stopped (and the directory removed) when the object goes away.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace distlock::testing {

class RedisServer {
 public:
  // Finds redis-server on PATH (or /usr/bin, /usr/sbin); throws std::runtime_error when it is
  // missing or does not come up, with the server's own output in the message.
  // `extra_args` are appended to the command line (e.g. {"--requirepass", "secret"}).
  explicit RedisServer(std::vector<std::string> extra_args = {});
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  std::uint16_t port() const { return port_; }
  const std::filesystem::path& directory() const { return directory_; }
  // "redis://127.0.0.1:<port>"
  std::string url() const;
  // Runs a command through redis-cli against this server; returns its trimmed stdout.
  std::string cli(const std::vector<std::string>& args) const;

 private:
  std::filesystem::path directory_;
  std::uint16_t port_ = 0;
  int pid_ = -1;
};

// A loopback port nobody listens on right now.
std::uint16_t free_loopback_port();

}  // namespace distlock::testing
