// SPDX-License-Identifier: Apache-2.0
// Small helpers shared by the integration suites.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>

#include "redis_cluster.h"
#include "redis_sentinel_group.h"
#include "redis_server.h"
#include "tls_files.h"

namespace distlock::testing {

using Clock = std::chrono::steady_clock;

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Waits for an observable state that has no event to await (a counter another thread
// changes): checks `condition` every millisecond until it holds or `limit` passes.
template <class Condition>
bool eventually(Condition&& condition, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto deadline = Clock::now() + limit;
  while (!condition()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// A one-shot event: set() on one thread, wait_for() on another.
class Event {
 public:
  // Notifies under the lock: a waiter that returns may destroy the event at once.
  void set(std::string detail = {}) {
    std::lock_guard lock(mutex_);
    if (set_) return;
    set_ = true;
    detail_ = std::move(detail);
    changed_.notify_all();
  }
  bool wait_for(std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, limit, [this] { return set_; });
  }
  bool is_set() const {
    std::lock_guard lock(mutex_);
    return set_;
  }
  std::string detail() const {
    std::lock_guard lock(mutex_);
    return detail_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool set_ = false;
  std::string detail_;
};

// A temporary directory, removed with everything in it when the object goes away.
class TempDirectory {
 public:
  TempDirectory() {
    std::error_code ec;
    std::filesystem::path base = std::filesystem::temp_directory_path(ec);
    if (ec) base = "/tmp";
    std::string pattern = (base / "distlock-itest-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
    }
    path_ = pattern;
  }
  ~TempDirectory() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// A redis-server stopped (SIGSTOP) for as long as this lives: its sockets stay open, it
// answers nothing.
class Frozen {
 public:
  explicit Frozen(const RedisServer& server) : pid_(server.pid()) { ::kill(pid_, SIGSTOP); }
  ~Frozen() { ::kill(pid_, SIGCONT); }
  Frozen(const Frozen&) = delete;
  Frozen& operator=(const Frozen&) = delete;

 private:
  int pid_;
};

// Starts a service with its defaults.
template <class Service>
struct StartDefault {
  std::unique_ptr<Service> operator()() const { return std::make_unique<Service>(); }
};

// A server (or group of servers) shared by the tests of a suite, started by the first test
// that needs it; a start that failed fails every later test alike.
template <class Server, class Start = StartDefault<Server>>
class SuiteService {
 public:
  using Service = Server;

  Service& get() {
    if (!service_) {
      if (!error_.empty()) throw std::runtime_error(error_);
      try {
        service_ = Start()();
      } catch (const std::exception& e) {
        error_ = e.what();
        throw;
      }
    }
    return *service_;
  }
  void stop() {
    service_.reset();
    error_.clear();
  }

 private:
  std::unique_ptr<Service> service_;
  std::string error_;
};

using SuiteRedis = SuiteService<RedisServer>;
using SuiteSentinelGroup = SuiteService<SentinelGroup>;
using SuiteRedisCluster = SuiteService<RedisCluster>;

// The same, speaking TLS only, with the test CA's certificates (tls_files.h).
struct StartTlsRedis {
  std::unique_ptr<RedisServer> operator()() const {
    return std::make_unique<RedisServer>(std::vector<std::string>{}, ServerTls::of_test_ca());
  }
};
struct StartTlsSentinelGroup {
  std::unique_ptr<SentinelGroup> operator()() const {
    return std::make_unique<SentinelGroup>(2, std::vector<std::string>{}, ServerTls::of_test_ca());
  }
};
struct StartTlsRedisCluster {
  std::unique_ptr<RedisCluster> operator()() const {
    return std::make_unique<RedisCluster>(3, 1, ServerTls::of_test_ca());
  }
};
// Each server behind a fault proxy of its group's, which the servers announce (ServerReach): the
// smallest groups that have what the fault rules test, a failover's parts and slots on three
// masters. The sentinels, which reach the servers through the proxies too, judge a master down
// after Redis's shipped 30 s: a fault of seconds is an outage to ride through, not a failover.
struct StartProxiedSentinelGroup {
  std::unique_ptr<SentinelGroup> operator()() const {
    auto group = std::make_unique<SentinelGroup>(1, std::vector<std::string>{}, std::nullopt,
                                                 ServerReach::through_proxies);
    group->judge_master_down_after(std::chrono::seconds(30));
    return group;
  }
};
struct StartProxiedRedisCluster {
  std::unique_ptr<RedisCluster> operator()() const {
    return std::make_unique<RedisCluster>(3, 0, std::nullopt, ServerReach::through_proxies);
  }
};
using SuiteTlsRedis = SuiteService<RedisServer, StartTlsRedis>;
using SuiteTlsSentinelGroup = SuiteService<SentinelGroup, StartTlsSentinelGroup>;
using SuiteTlsRedisCluster = SuiteService<RedisCluster, StartTlsRedisCluster>;
using SuiteProxiedSentinelGroup = SuiteService<SentinelGroup, StartProxiedSentinelGroup>;
using SuiteProxiedRedisCluster = SuiteService<RedisCluster, StartProxiedRedisCluster>;

// A rediss... URL of a test server, with the test CA to verify it by.
inline std::string with_test_ca(const std::string& url) {
  return url + "?cacert=" + tls_files().ca.string();
}

// Three independent redis-servers for Redlock, started by the first test that needs them.
class SuiteRedlockMasters {
 public:
  SuiteRedlockMasters() = default;
  // Masters that speak TLS only.
  explicit SuiteRedlockMasters(ServerTls tls) : tls_(std::move(tls)) {}

  // "redis+redlock://127.0.0.1:<p1>,127.0.0.1:<p2>,127.0.0.1:<p3>" (rediss+redlock:// with TLS)
  std::string url() {
    if (masters_.empty()) {
      if (!error_.empty()) throw std::runtime_error(error_);
      try {
        for (int i = 0; i < 3; ++i)
          masters_.push_back(std::make_unique<RedisServer>(std::vector<std::string>{}, tls_));
      } catch (const std::exception& e) {
        masters_.clear();
        error_ = e.what();
        throw;
      }
    }
    std::string url = tls_ ? "rediss+redlock://" : "redis+redlock://";
    for (std::size_t i = 0; i < masters_.size(); ++i)
      url += (i == 0 ? "127.0.0.1:" : ",127.0.0.1:") + std::to_string(masters_[i]->port());
    return url;
  }
  void stop() {
    masters_.clear();
    error_.clear();
  }

 private:
  std::optional<ServerTls> tls_;
  std::vector<std::unique_ptr<RedisServer>> masters_;
  std::string error_;
};

// "<prefix>-<pid>-<n>": distinct across the tests of one process and across processes.
inline std::string unique_name(std::string_view prefix) {
  static std::mutex mutex;
  static unsigned counter = 0;
  std::lock_guard lock(mutex);
  return std::string(prefix) + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
}

// redis-cli's HGETALL output (field and value on alternate lines) as a map.
inline std::map<std::string, std::string> parse_hgetall(const std::string& output) {
  std::map<std::string, std::string> fields;
  std::istringstream lines(output);
  std::string field;
  std::string value;
  while (std::getline(lines, field)) {
    if (!std::getline(lines, value)) value.clear();
    fields[field] = value;
  }
  return fields;
}

}  // namespace distlock::testing
