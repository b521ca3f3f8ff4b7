// SPDX-License-Identifier: Apache-2.0
// One ZooKeeper session: a handle of the multi-threaded C client, its connection state, its
// credentials, and the watches its waiters set. A session that expired is never usable
// again; the SessionKeeper opens the next one.
//
// The C client calls back on its completion thread. Everything called there only updates
// state and notifies (a short mutex at most): it never waits for the server.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include <zookeeper/zookeeper.h>

#include "backends/zookeeper/settings.h"
#include "backends/zookeeper/wakeup.h"
#include "core/stats.h"
#include "util/secret_filter.h"

namespace distlock::detail::zookeeper {

class Session {
 public:
  // Starts connecting. `on_change` runs on the client's completion thread after each change
  // of state() or of the authentication; it must only notify. Throws BackendUnavailable when
  // the client cannot even start (a host name that does not resolve).
  Session(const ZooKeeperSettings& settings, StatsCounters& stats, std::function<void()> on_change);
  // Closes the handle: the server ends the session and deletes its ephemeral nodes. First
  // waits, up to the command timeout, for the replies to requests sent ahead: the C client's
  // completion thread stops at the close without running the completions still queued, which
  // would then never run (nor free what they own).
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  zhandle_t* handle() const { return handle_; }

  // Connected and, with credentials, authenticated: requests may go.
  bool ready() const;
  // Connected, credentials not sent yet: the keeper calls authenticate().
  bool needs_auth() const;
  // Expired, or its credentials refused: never usable again.
  bool dead() const;
  bool expired() const;
  bool auth_failed() const;
  // Whether it ever was ready (a session that never was is not worth reopening at once).
  bool was_ready() const { return was_ready_.load(); }
  // The session id, 0 until first connected.
  std::int64_t id() const { return id_.load(); }
  // The session timeout the server granted, 0 until first connected.
  Millis timeout() const { return Millis(timeout_ms_.load()); }
  // "session 0x1f00000001", for messages.
  std::string describe() const;
  // Why the credentials were refused.
  std::string auth_error() const;

  // Held by a request sent without waiting (its completion's data) until its completion ran.
  class Unanswered {
   public:
    explicit Unanswered(Session& session);
    ~Unanswered();
    Unanswered(const Unanswered&) = delete;
    Unanswered& operator=(const Unanswered&) = delete;

   private:
    Session& session_;
  };

  // Sends the credentials (digest); the outcome arrives as a change. Once, when needs_auth().
  void authenticate();

  // Watches. `wakeup` gets node_event() when the watch set with node_watcher and the returned
  // id as its context fires, and is notified when the session ends. A watch event is counted
  // in stats.notifications when its waiter is still there.
  std::uint64_t add_watch(const std::shared_ptr<Wakeup>& wakeup);
  void remove_watch(std::uint64_t id);
  static void* watch_context(std::uint64_t id);
  static void node_watcher(zhandle_t* handle, int type, int state, const char* path, void* context);

 private:
  enum State : int { connecting, connected, expired_state, auth_failed_state };
  enum Auth : int { auth_none, auth_unsent, auth_sent, auth_ok, auth_refused };

  static void session_watcher(zhandle_t* handle, int type, int state, const char* path,
                              void* context);
  static void auth_completion(int rc, const void* data);
  void on_state(zhandle_t* handle, int state);
  void on_auth(int rc);
  void fire(std::uint64_t id);
  void wake_all();

  const ZooKeeperSettings settings_;
  // Goes after the handle is closed: the client logs until then.
  const SecretFilter secrets_;
  StatsCounters& stats_;
  const std::function<void()> on_change_;
  std::atomic<int> state_{connecting};
  std::atomic<int> auth_;
  std::atomic<bool> was_ready_{false};
  std::atomic<bool> was_connected_{false};
  std::atomic<std::int64_t> id_{0};
  std::atomic<int> timeout_ms_{0};
  std::atomic<int> auth_rc_{ZOK};

  std::mutex unanswered_mutex_;
  std::condition_variable all_answered_;
  int unanswered_ = 0;

  std::mutex watches_mutex_;
  std::unordered_map<std::uint64_t, std::weak_ptr<Wakeup>> watches_;
  std::uint64_t next_watch_ = 1;

  // Last: the handle calls back into the members above until it is closed.
  zhandle_t* handle_ = nullptr;
};

}  // namespace distlock::detail::zookeeper
