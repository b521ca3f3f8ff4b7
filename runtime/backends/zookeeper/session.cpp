// SPDX-License-Identifier: Apache-2.0
#include "backends/zookeeper/session.h"

#include <cerrno>
#include <cstring>
#include <vector>

#include <distlock/log.h>

#include "backends/zookeeper/status.h"
#include "util/hex.h"

namespace distlock::detail::zookeeper {
namespace {

// The C client's own log lines (one per failed connection attempt while a server is down,
// among others) go to distlock's logger as debug messages; the session's changes of state
// are reported below, once each, as warnings.
void log_client_message(const char* message) {
  std::string_view text(message);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  detail::log(LogLevel::debug, "distlock: ZooKeeper client: " + std::string(text));
}

std::string hex_id(std::int64_t id) {
  const auto bits = static_cast<std::uint64_t>(id);
  int digits = 1;
  while (digits < 16 && (bits >> (digits * 4)) != 0) ++digits;
  std::string text = "0x";
  append_hex(text, bits, digits);
  return text;
}

}  // namespace

Session::Session(const ZooKeeperSettings& settings, StatsCounters& stats,
                 std::function<void()> on_change)
    : settings_(settings),
      secrets_(settings.secrets),
      stats_(stats),
      on_change_(std::move(on_change)),
      auth_(settings.credentials ? auth_unsent : auth_none) {
  errno = 0;
  handle_ = zookeeper_init2(settings_.connect_string.c_str(), &Session::session_watcher,
                            static_cast<int>(settings_.session_timeout.count()), nullptr, this, 0,
                            &log_client_message);
  if (handle_ == nullptr) {
    // Most often a host name that does not resolve (errno then says little: ENOENT).
    const int error = errno;
    throw status::unavailable(
        "", settings_.server,
        "the ZooKeeper client could not start with the URL's hosts (does every host name "
        "resolve?)" +
            (error != 0 && error != ENOENT ? std::string(": ") + std::strerror(error)
                                           : std::string()));
  }
  // By default the client resolves the host names again each time its thread looks at the
  // socket, twice per request (getaddrinfo: a netlink socket and an address dump each time).
  // Resolved on (re)connecting only, as the Java client does.
  zoo_set_servers_resolution_delay(handle_, -1);
}

Session::~Session() {
  if (handle_ == nullptr) return;
  {
    std::unique_lock lock(unanswered_mutex_);
    all_answered_.wait_for(lock, settings_.command_timeout, [this] { return unanswered_ == 0; });
  }
  zookeeper_close(handle_);
}

Session::Unanswered::Unanswered(Session& session) : session_(session) {
  const std::lock_guard lock(session_.unanswered_mutex_);
  ++session_.unanswered_;
}

Session::Unanswered::~Unanswered() {
  // Notified under the lock: once the count is 0, the session may be destroyed.
  const std::lock_guard lock(session_.unanswered_mutex_);
  if (--session_.unanswered_ == 0) session_.all_answered_.notify_all();
}

bool Session::ready() const {
  const int auth = auth_.load();
  return state_.load() == connected && (auth == auth_none || auth == auth_ok);
}

bool Session::needs_auth() const {
  return state_.load() == connected && auth_.load() == auth_unsent;
}

bool Session::dead() const { return expired() || auth_failed(); }
bool Session::expired() const { return state_.load() == expired_state; }
bool Session::auth_failed() const {
  return state_.load() == auth_failed_state || auth_.load() == auth_refused;
}

std::string Session::describe() const {
  const auto id = id_.load();
  return id == 0 ? std::string("a session not yet established") : "session " + hex_id(id);
}

std::string Session::auth_error() const {
  return "the server refused the credentials: " + status::reason(auth_rc_.load());
}

void Session::authenticate() {
  int expected = auth_unsent;
  if (!auth_.compare_exchange_strong(expected, auth_sent)) return;
  const std::string& credentials = *settings_.credentials;
  const int rc =
      zoo_add_auth(handle_, "digest", credentials.data(), static_cast<int>(credentials.size()),
                   &Session::auth_completion, this);
  if (rc != ZOK) on_auth(rc);
}

void Session::auth_completion(int rc, const void* data) {
  static_cast<Session*>(const_cast<void*>(data))->on_auth(rc);
}

void Session::on_auth(int rc) {
  if (rc == ZCLOSING) return;
  auth_rc_ = rc;
  auth_ = rc == ZOK ? auth_ok : auth_refused;
  if (rc == ZOK && state_.load() == connected) was_ready_ = true;
  if (rc != ZOK) {
    detail::log(LogLevel::error, detail::failure_message("", settings_.server, auth_error()));
    wake_all();
  }
  on_change_();
}

void Session::session_watcher(zhandle_t* handle, int type, int state, const char*, void* context) {
  if (type != ZOO_SESSION_EVENT || context == nullptr) return;
  static_cast<Session*>(context)->on_state(handle, state);
}

void Session::on_state(zhandle_t* handle, int state) {
  if (state == ZOO_CONNECTED_STATE) {
    if (const clientid_t* client = zoo_client_id(handle)) id_ = client->client_id;
    timeout_ms_ = zoo_recv_timeout(handle);
    if (was_connected_.exchange(true) && state_.load() != connected)
      detail::log(LogLevel::info,
                  detail::failure_message("", settings_.server,
                                          "reconnected; " + describe() + " and its locks live on"));
    state_ = connected;
    const int auth = auth_.load();
    if (auth == auth_none || auth == auth_ok) was_ready_ = true;
  } else if (state == ZOO_CONNECTING_STATE || state == ZOO_ASSOCIATING_STATE) {
    if (state_.exchange(connecting) == connected)
      detail::log(
          LogLevel::warning,
          detail::failure_message("", settings_.server,
                                  "disconnected; reconnecting. Locks of " + describe() +
                                      " stay valid until the server could expire it (" +
                                      std::to_string(timeout_ms_.load()) + " ms without contact)"));
  } else if (state == ZOO_EXPIRED_SESSION_STATE) {
    state_ = expired_state;
    detail::log(LogLevel::warning,
                detail::failure_message("", settings_.server,
                                        describe() + " expired: its locks are lost; opening a new "
                                                     "session"));
    wake_all();
  } else if (state == ZOO_AUTH_FAILED_STATE) {
    state_ = auth_failed_state;
    auth_rc_ = ZAUTHFAILED;
    detail::log(LogLevel::error, detail::failure_message("", settings_.server, auth_error()));
    wake_all();
  } else {
    return;
  }
  on_change_();
}

std::uint64_t Session::add_watch(const std::shared_ptr<Wakeup>& wakeup) {
  std::lock_guard lock(watches_mutex_);
  const auto id = next_watch_++;
  watches_.emplace(id, wakeup);
  return id;
}

void Session::remove_watch(std::uint64_t id) {
  std::lock_guard lock(watches_mutex_);
  watches_.erase(id);
}

void* Session::watch_context(std::uint64_t id) {
  // The C client hands a watch its context as a void*: the id is carried in it, not a pointer.
  // NOLINTNEXTLINE(performance-no-int-to-ptr)
  return reinterpret_cast<void*>(static_cast<std::uintptr_t>(id));
}

void Session::node_watcher(zhandle_t* handle, int type, int, const char*, void* context) {
  // Session events reach every registered watch too; the session watcher handles them.
  if (type == ZOO_SESSION_EVENT || type == ZOO_NOTWATCHING_EVENT) return;
  auto* session = static_cast<Session*>(const_cast<void*>(zoo_get_context(handle)));
  if (session == nullptr) return;
  session->fire(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(context)));
}

void Session::fire(std::uint64_t id) {
  std::shared_ptr<Wakeup> wakeup;
  {
    std::lock_guard lock(watches_mutex_);
    const auto found = watches_.find(id);
    if (found == watches_.end()) return;  // its waiter gave up
    wakeup = found->second.lock();
    watches_.erase(found);
  }
  if (!wakeup) return;
  ++stats_.notifications;
  wakeup->node_event(*this);
}

void Session::wake_all() {
  std::vector<std::shared_ptr<Wakeup>> waiting;
  {
    std::lock_guard lock(watches_mutex_);
    for (const auto& [id, weak] : watches_)
      if (auto wakeup = weak.lock()) waiting.push_back(std::move(wakeup));
  }
  for (const auto& wakeup : waiting) wakeup->notify(Wakeup::Cause::session_event);
}

}  // namespace distlock::detail::zookeeper
