// SPDX-License-Identifier: Apache-2.0
// A plain ZooKeeper client for tests (libzookeeper_mt, synchronous calls): inspects and
// changes nodes behind distlock's back. Its log goes nowhere (its own log callback), so it
// leaves the library's global log settings alone.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

struct _zhandle;

namespace distlock::testing {

// A call that failed with a ZooKeeper error code (ZNONODE, ZNOAUTH, ...).
class ZooKeeperError : public std::runtime_error {
 public:
  ZooKeeperError(int code, const std::string& what);
  int code() const { return code_; }

 private:
  int code_;
};

// The libzookeeper name of an error code: "ZNOAUTH", "ZNONODE", ...
std::string zookeeper_error_name(int code);

struct NodeStat {
  std::int64_t czxid = 0;
  std::int64_t mzxid = 0;
  std::int64_t ephemeral_owner = 0;  // session id; 0x8000000000000000 marks a container node
  std::int32_t num_children = 0;
  std::int32_t version = 0;
};

struct NodeAcl {
  std::int32_t perms = 0;  // ZOO_PERM_* bits
  std::string scheme;      // "world", "digest", "auth", ...
  std::string id;          // "anyone", "alice:<base64 sha1>", ...
};

// What a watch reported, and when this process saw it.
struct WatchEvent {
  int type = 0;  // ZOO_DELETED_EVENT, ZOO_CHILD_EVENT, ...
  std::chrono::steady_clock::time_point seen_at;
};

// A one-shot watch: set by the client's event thread, awaited by the test.
class Watch {
 public:
  // The event, once it came within `limit`; nullopt otherwise.
  std::optional<WatchEvent> wait_for(std::chrono::milliseconds limit);

 private:
  friend class ZooKeeperClient;
  void fire(int type);
  std::mutex mutex_;
  std::condition_variable fired_;
  std::optional<WatchEvent> event_;
};

class ZooKeeperClient {
 public:
  // Connects to `hosts` ("127.0.0.1:2181,...") and waits until the session is established;
  // throws std::runtime_error when it is not within `connect_timeout`. With `digest`
  // ("user:password"), authenticates with the digest scheme once connected.
  explicit ZooKeeperClient(const std::string& hosts,
                           std::chrono::milliseconds session_timeout = std::chrono::seconds(10),
                           std::optional<std::string> digest = std::nullopt,
                           std::chrono::milliseconds connect_timeout = std::chrono::seconds(20));
  ~ZooKeeperClient();
  ZooKeeperClient(const ZooKeeperClient&) = delete;
  ZooKeeperClient& operator=(const ZooKeeperClient&) = delete;

  std::int64_t session_id() const;

  // The reading calls (children, stat, acl, data) ride out a reconnection (a server restart,
  // say): on a connection loss they are tried again until `retry_limit` has passed.
  static constexpr std::chrono::milliseconds retry_limit{20000};

  // The children's names, sorted; empty when the node does not exist.
  std::vector<std::string> children(const std::string& path);
  // nullopt when the node does not exist.
  std::optional<NodeStat> stat(const std::string& path);
  std::vector<NodeAcl> acl(const std::string& path);
  std::string data(const std::string& path);
  // Deletes `path` (any version); returns the ZooKeeper result code (ZOK, ZNONODE, ZNOAUTH...)
  // instead of throwing.
  int remove(const std::string& path);
  // Creates a node (flags: ZOO_EPHEMERAL, ZOO_SEQUENCE, ...; open ACL); returns its path.
  std::string create(const std::string& path, const std::string& data = {}, int flags = 0);
  // Sets a watch on `path` (exists: fires on creation, deletion or change). The node's stat
  // is returned through `stat` when it exists.
  std::shared_ptr<Watch> watch(const std::string& path, std::optional<NodeStat>* stat = nullptr);

 private:
  static void on_session_event(_zhandle* zh, int type, int state, const char* path, void* context);
  static void on_watch_event(_zhandle* zh, int type, int state, const char* path, void* context);
  [[noreturn]] void fail(int code, const std::string& what) const;
  // Runs `call` (returning a ZooKeeper result code) again while it fails with a connection
  // loss, waiting for the session to be connected again in between, up to retry_limit.
  template <class Call>
  int retrying(Call&& call);

  std::string hosts_;
  _zhandle* handle_ = nullptr;
  std::mutex mutex_;
  std::condition_variable changed_;
  int state_ = 0;
  std::vector<std::shared_ptr<Watch>> watches_;  // kept alive while the handle may call them
};

}  // namespace distlock::testing
