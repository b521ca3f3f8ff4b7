// SPDX-License-Identifier: Apache-2.0
#include "zookeeper_client.h"

#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <future>

namespace distlock::testing {

namespace {

void discard_log(const char*) {}

NodeStat convert(const Stat& stat) {
  NodeStat out;
  out.czxid = stat.czxid;
  out.mzxid = stat.mzxid;
  out.ephemeral_owner = stat.ephemeralOwner;
  out.num_children = stat.numChildren;
  out.version = stat.version;
  return out;
}

}  // namespace

ZooKeeperError::ZooKeeperError(int code, const std::string& what)
    : std::runtime_error(what), code_(code) {}

std::string zookeeper_error_name(int code) {
  switch (code) {
    case ZOK:
      return "ZOK";
    case ZSYSTEMERROR:
      return "ZSYSTEMERROR";
    case ZRUNTIMEINCONSISTENCY:
      return "ZRUNTIMEINCONSISTENCY";
    case ZDATAINCONSISTENCY:
      return "ZDATAINCONSISTENCY";
    case ZCONNECTIONLOSS:
      return "ZCONNECTIONLOSS";
    case ZMARSHALLINGERROR:
      return "ZMARSHALLINGERROR";
    case ZUNIMPLEMENTED:
      return "ZUNIMPLEMENTED";
    case ZOPERATIONTIMEOUT:
      return "ZOPERATIONTIMEOUT";
    case ZBADARGUMENTS:
      return "ZBADARGUMENTS";
    case ZINVALIDSTATE:
      return "ZINVALIDSTATE";
    case ZAPIERROR:
      return "ZAPIERROR";
    case ZNONODE:
      return "ZNONODE";
    case ZNOAUTH:
      return "ZNOAUTH";
    case ZBADVERSION:
      return "ZBADVERSION";
    case ZNOCHILDRENFOREPHEMERALS:
      return "ZNOCHILDRENFOREPHEMERALS";
    case ZNODEEXISTS:
      return "ZNODEEXISTS";
    case ZNOTEMPTY:
      return "ZNOTEMPTY";
    case ZSESSIONEXPIRED:
      return "ZSESSIONEXPIRED";
    case ZINVALIDCALLBACK:
      return "ZINVALIDCALLBACK";
    case ZINVALIDACL:
      return "ZINVALIDACL";
    case ZAUTHFAILED:
      return "ZAUTHFAILED";
    case ZCLOSING:
      return "ZCLOSING";
    case ZNOTHING:
      return "ZNOTHING";
    case ZSESSIONMOVED:
      return "ZSESSIONMOVED";
    default:
      return "ZooKeeper error " + std::to_string(code);
  }
}

std::optional<WatchEvent> Watch::wait_for(std::chrono::milliseconds limit) {
  std::unique_lock lock(mutex_);
  fired_.wait_for(lock, limit, [this] { return event_.has_value(); });
  return event_;
}

void Watch::fire(int type) {
  {
    std::lock_guard lock(mutex_);
    if (event_) return;
    event_ = WatchEvent{type, std::chrono::steady_clock::now()};
  }
  fired_.notify_all();
}

ZooKeeperClient::ZooKeeperClient(const std::string& hosts,
                                 std::chrono::milliseconds session_timeout,
                                 std::optional<std::string> digest,
                                 std::chrono::milliseconds connect_timeout)
    : hosts_(hosts) {
  handle_ =
      zookeeper_init2(hosts.c_str(), &ZooKeeperClient::on_session_event,
                      static_cast<int>(session_timeout.count()), nullptr, this, 0, &discard_log);
  if (handle_ == nullptr) {
    throw std::runtime_error("zookeeper_init(" + hosts + ") failed: " + std::strerror(errno));
  }
  try {
    {
      std::unique_lock lock(mutex_);
      if (!changed_.wait_for(lock, connect_timeout,
                             [this] { return state_ == ZOO_CONNECTED_STATE; })) {
        throw std::runtime_error("the test's ZooKeeper client could not connect to " + hosts +
                                 " within " + std::to_string(connect_timeout.count()) + " ms");
      }
    }
    if (digest) {
      // The completion may come after a timeout here: it owns its own reference.
      auto done = std::make_shared<std::promise<int>>();
      auto result = done->get_future();
      auto* reference = new std::shared_ptr<std::promise<int>>(done);
      const int rc = zoo_add_auth(
          handle_, "digest", digest->data(), static_cast<int>(digest->size()),
          [](int code, const void* data) {
            auto* promise =
                static_cast<std::shared_ptr<std::promise<int>>*>(const_cast<void*>(data));
            (*promise)->set_value(code);
            delete promise;
          },
          reference);
      if (rc != ZOK) {
        delete reference;
        fail(rc, "zoo_add_auth");
      }
      if (result.wait_for(connect_timeout) != std::future_status::ready) {
        fail(ZOPERATIONTIMEOUT, "zoo_add_auth");
      }
      if (const int code = result.get(); code != ZOK) fail(code, "zoo_add_auth digest");
    }
  } catch (...) {
    // No destructor runs for a constructor that throws: close the handle here.
    zookeeper_close(handle_);
    handle_ = nullptr;
    throw;
  }
}

ZooKeeperClient::~ZooKeeperClient() {
  if (handle_ != nullptr) zookeeper_close(handle_);
}

void ZooKeeperClient::on_session_event(_zhandle*, int type, int state, const char*, void* context) {
  if (type != ZOO_SESSION_EVENT) return;
  auto* self = static_cast<ZooKeeperClient*>(context);
  {
    std::lock_guard lock(self->mutex_);
    self->state_ = state;
  }
  self->changed_.notify_all();
}

void ZooKeeperClient::on_watch_event(_zhandle*, int type, int, const char*, void* context) {
  if (type == ZOO_SESSION_EVENT) return;  // connection state changes: the watch stays set
  static_cast<Watch*>(context)->fire(type);
}

void ZooKeeperClient::fail(int code, const std::string& what) const {
  throw ZooKeeperError(code, "ZooKeeper (" + hosts_ + ") " + what + ": " +
                                 zookeeper_error_name(code) + " (" + zerror(code) + ")");
}

template <class Call>
int ZooKeeperClient::retrying(Call&& call) {
  const auto deadline = std::chrono::steady_clock::now() + retry_limit;
  for (;;) {
    const int rc = call();
    if (rc != ZCONNECTIONLOSS && rc != ZOPERATIONTIMEOUT) return rc;
    if (std::chrono::steady_clock::now() >= deadline) return rc;
    // The C client reconnects on its own; wait until it says so (or a little, when it has not
    // noticed the loss yet).
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::milliseconds(20),
                      [this] { return state_ != ZOO_CONNECTED_STATE; });
    changed_.wait_until(lock, deadline, [this] { return state_ == ZOO_CONNECTED_STATE; });
  }
}

std::int64_t ZooKeeperClient::session_id() const {
  const clientid_t* id = zoo_client_id(handle_);
  return id == nullptr ? 0 : id->client_id;
}

std::vector<std::string> ZooKeeperClient::children(const std::string& path) {
  String_vector names{};
  const int rc = retrying([&] { return zoo_get_children(handle_, path.c_str(), 0, &names); });
  if (rc == ZNONODE) return {};
  if (rc != ZOK) fail(rc, "get_children " + path);
  std::vector<std::string> result;
  for (int i = 0; i < names.count; ++i) result.emplace_back(names.data[i]);
  deallocate_String_vector(&names);
  std::sort(result.begin(), result.end());
  return result;
}

std::optional<NodeStat> ZooKeeperClient::stat(const std::string& path) {
  Stat stat{};
  const int rc = retrying([&] { return zoo_exists(handle_, path.c_str(), 0, &stat); });
  if (rc == ZNONODE) return std::nullopt;
  if (rc != ZOK) fail(rc, "exists " + path);
  return convert(stat);
}

std::vector<NodeAcl> ZooKeeperClient::acl(const std::string& path) {
  ACL_vector acls{};
  Stat stat{};
  const int rc = retrying([&] { return zoo_get_acl(handle_, path.c_str(), &acls, &stat); });
  if (rc != ZOK) fail(rc, "get_acl " + path);
  std::vector<NodeAcl> result;
  for (int i = 0; i < acls.count; ++i) {
    result.push_back({acls.data[i].perms, acls.data[i].id.scheme, acls.data[i].id.id});
  }
  deallocate_ACL_vector(&acls);
  return result;
}

std::string ZooKeeperClient::data(const std::string& path) {
  std::string buffer(1 << 20, '\0');
  int length = static_cast<int>(buffer.size());
  Stat stat{};
  const int rc = retrying([&] {
    length = static_cast<int>(buffer.size());
    return zoo_get(handle_, path.c_str(), 0, buffer.data(), &length, &stat);
  });
  if (rc != ZOK) fail(rc, "get " + path);
  buffer.resize(length < 0 ? 0 : static_cast<std::size_t>(length));
  return buffer;
}

int ZooKeeperClient::remove(const std::string& path) {
  return zoo_delete(handle_, path.c_str(), -1);
}

std::string ZooKeeperClient::create(const std::string& path, const std::string& data, int flags) {
  std::string created(path.size() + 64, '\0');
  const int rc =
      zoo_create(handle_, path.c_str(), data.data(), static_cast<int>(data.size()),
                 &ZOO_OPEN_ACL_UNSAFE, flags, created.data(), static_cast<int>(created.size()));
  if (rc != ZOK) fail(rc, "create " + path);
  created.resize(std::strlen(created.c_str()));
  return created;
}

std::shared_ptr<Watch> ZooKeeperClient::watch(const std::string& path,
                                              std::optional<NodeStat>* stat) {
  auto watch = std::make_shared<Watch>();
  {
    std::lock_guard lock(mutex_);
    watches_.push_back(watch);
  }
  Stat found{};
  const int rc =
      zoo_wexists(handle_, path.c_str(), &ZooKeeperClient::on_watch_event, watch.get(), &found);
  if (rc != ZOK && rc != ZNONODE) fail(rc, "exists (watch) " + path);
  if (stat != nullptr) {
    if (rc == ZOK) {
      *stat = convert(found);
    } else {
      stat->reset();
    }
  }
  return watch;
}

}  // namespace distlock::testing
