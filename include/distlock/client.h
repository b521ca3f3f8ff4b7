// SPDX-License-Identifier: Apache-2.0
// Client: a connection to one lock service, chosen by URL. Thread-safe; one per process is
// normal. Each client runs one renewal thread for the leases it granted.
//
//   memory://[name]                                in-process; clients with one name share locks
//   redis://[user:password@]host[:port][/db][?query]
//   redis+unix:///path/to/redis.sock[?db=N&query]
//   zookeeper://[user:password@]host[:port][,host[:port]...][/chroot][?query]
//
// Query parameters: connect_timeout, command_timeout, outage_limit (durations such as 2s; not
// outage_limit on Redlock), max_connections (Redis), session_timeout (ZooKeeper).
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <distlock/async_acquisition.h>
#include <distlock/duration.h>
#include <distlock/election.h>
#include <distlock/events.h>
#include <distlock/key.h>
#include <distlock/lease.h>
#include <distlock/spec.h>

namespace distlock {

// How a client connects and behaves; Client::connect and configure take them.
struct Options {
  // Connecting (and authenticating) gives up after this: BackendUnavailable.
  Millis connect_timeout = std::chrono::seconds(3);
  // A command whose reply takes longer counts as a failed round trip.
  Millis command_timeout = std::chrono::seconds(3);
  // How long an operation without a deadline of its own (an acquisition that waits without
  // limit, a release) keeps trying while the server cannot be reached or cannot serve yet (a
  // restart, a failover), counted from its first failure since an exchange last got through; then
  // BackendUnavailable. An acquisition with a wait keeps trying while the wait lasts. Zero:
  // the first failure is the caller's. Every backend but Redlock. The default outlasts a
  // Sentinel failover at Redis's shipped settings (30 s before the master is judged down, then
  // the election).
  Millis outage_limit = std::chrono::seconds(60);
  // Connections kept for commands; callers beyond it wait for a free one.
  unsigned max_connections = 16;
  // A lease is renewed once this fraction of its ttl has passed since the last grant.
  double renew_fraction = 1.0 / 3.0;
  // ZooKeeper: the session timeout asked of the server (which may grant another within its
  // limits). A lease's ttl is capped at the granted timeout, so it is no longer valid once the
  // server could have expired the session and handed the lock to someone else.
  Millis session_timeout = std::chrono::seconds(10);
  // Receives what happens to this client's locks (distlock/events.h); empty: nothing is
  // reported. PrometheusMetrics::hook() (distlock/prometheus.h) counts them for /metrics.
  EventHook on_event;
};

// Counters since the client was created.
struct ClientStats {
  std::uint64_t acquired = 0;          // leases granted, reentrant ones included
  std::uint64_t contended = 0;         // acquisitions that found the lock taken
  std::uint64_t woken_by_release = 0;  // waits ended by a release notification
  std::uint64_t woken_by_timeout = 0;  // waits ended by the holder's ttl or the wait limit
  std::uint64_t timeouts = 0;          // LockTimeout thrown or try_acquire empty
  std::uint64_t renewals = 0;          // successful renewals
  std::uint64_t renewal_failures = 0;  // renewals that failed for a network error
  std::uint64_t lost = 0;              // leases marked lost
  std::uint64_t notifications = 0;     // release notifications received (Redis messages,
                                       // ZooKeeper watch events) for locks waited on
  std::uint64_t round_trips = 0;       // exchanges with the server: requests sent back to
                                       // back and answered together count once
  std::uint64_t waiting = 0;           // callers waiting right now
  std::uint64_t release_failures = 0;  // releases that never reached the server (release_failed)
};

namespace detail {
class ClientCore;
}

// A connection to one lock service (a URL): takes and renews the leases of its process.
// One per process is normal (default_client()); thread-safe.
class Client {
 public:
  // Connects (eagerly: an unreachable server throws BackendUnavailable here, within
  // connect_timeout). Throws ConfigError for a bad URL.
  static std::shared_ptr<Client> connect(std::string_view url, const Options& options = {});

  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Waits as the spec says; throws LockTimeout when the wait runs out.
  Lease acquire(const LockSpec& spec, const Key& key = {});
  // Never waits, whatever the spec says: nullopt when the lock is taken.
  std::optional<Lease> try_acquire(const LockSpec& spec, const Key& key = {});

  // How an asynchronous acquisition ends: with no exception and the lease, or with why there
  // is none (LockTimeout, BackendUnavailable, ConfigError, AcquisitionCancelled) and an empty
  // Lease.
  using AcquireHandler = std::function<void(std::exception_ptr, Lease)>;
  // Acquires as acquire() does, without blocking the calling thread: the waiting is driven by
  // release notifications and timers on the client's own thread, with no thread per waiter.
  // `handler` is called exactly once, never before this returns, on that thread, and never
  // while the library holds a lock: keep it short (post the work to your own executor, as
  // distlock/asio.h does); an exception it lets out is logged and dropped. The lease belongs to no
  // thread: it is not re-entered, and current() does not show it. On Redis each attempt is
  // made on the client's thread (a round trip; on Redlock one per master, a minority of them
  // down as acquire() allows), and an outage is not ridden through: BackendUnavailable; on
  // ZooKeeper the round trips are made on that thread too, and a disconnection is ridden out
  // there, up to connect_timeout. A pending acquisition does not keep the client open: when
  // its last owner (this Client, or a Lease) goes, each one ends as AcquisitionCancelled,
  // holding nothing, before the client closes.
  AsyncAcquisition acquire_async(const LockSpec& spec, const Key& key, AcquireHandler handler);

  // Campaigns in the election (distlock/election.h): waits as the spec says to be elected, then
  // returns the term, renewed while it is held. Throws LockTimeout when the wait runs out,
  // naming the election's lock ("elections:<name>"). A campaign never re-enters: a second one
  // of the same thread waits for the first term to end like anyone else's.
  Leadership campaign(const ElectionSpec& election);
  // Never waits, whatever the spec says: nullopt when another campaigner leads.
  std::optional<Leadership> try_campaign(const ElectionSpec& election);
  // How an asynchronous campaign ends: with no exception and the term, or with why there is
  // none (as AcquireHandler) and an empty Leadership.
  using CampaignHandler = std::function<void(std::exception_ptr, Leadership)>;
  // Campaigns as campaign() does, without blocking the calling thread: as acquire_async()
  // acquires, `handler` called once on the client's own thread (distlock/asio.h:
  // async_campaign).
  AsyncAcquisition campaign_async(const ElectionSpec& election, CampaignHandler handler);

  // The server as error messages name it: the URL without its password.
  const std::string& server() const;
  // The counters since the client was created (ClientStats).
  ClientStats stats() const;

 private:
  explicit Client(std::shared_ptr<detail::ClientCore> core);

  std::shared_ptr<detail::ClientCore> core_;
};

// Sets the URL of default_client(). Throws ConfigError once default_client() is in use.
void configure(std::string_view url, Options options = {});
// The process's client: configure(url), else the DISTLOCK_URL environment variable, else
// redis://127.0.0.1:6379. Connects on first use.
Client& default_client();

}  // namespace distlock
