// SPDX-License-Identifier: Apache-2.0
// The shared heart of a Client: the backend, the renewal queue and the counters.
//
// Ownership (-> is a shared_ptr, ~> a plain reference that the owner outlives):
//
//   Client ----------> ClientCore --unique--> Backend (its threads: listeners, sessions)
//   Lease (owning) --> ClientCore    \-------> RenewalQueue (one thread) ~> Backend, stats
//   Lease (owning) --> LeaseState --> server name (shared, so no one needs the core to name it)
//   current() views -> LeaseState       (thread_local, per acquiring thread)
//   RenewalQueue ----> LeaseState       (from add() until remove(); a batch while renewing)
//
// Only Client handles and owning Leases keep the core alive; a LeaseState never does, nor does
// a pending asynchronous acquisition: the core, as it closes, ends each one as cancelled and
// waits for its handler (a waiter on a lock never freed would otherwise keep the core, its
// threads and its caller's work alive for ever). So the
// core is destroyed by the user thread that drops the last Client or owning Lease: not by the
// renewal thread for its own references (they are to LeaseStates), nor by a thread whose
// held-lease list still shows a lease released elsewhere. RenewalQueue::remove() returns only
// after the lease's renewal and loss report are over, and the release then drops the lost
// callback: what the callback owns (a Client, say) goes on the releasing thread. A lost
// callback that owns the last owning Lease (directly, or through another lease's callback)
// still ends the last owner on the renewal thread, when the callback goes after it ran: the
// core's deleter (destroy) then hands the core to a thread of its own, since the renewal
// queue cannot join the thread it runs on.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <distlock/client.h>
#include <distlock/election.h>

#include "backends/backend.h"
#include "core/async_executor.h"
#include "core/event_sink.h"
#include "core/lease_state.h"
#include "core/owner_token.h"
#include "core/renewal_queue.h"
#include "core/stats.h"
#include "core/unawaited_releases.h"

namespace distlock::detail {

enum class IfBusy {
  wait_then_throw,       // wait up to the spec's wait, then throw LockTimeout
  return_empty_at_once,  // try once: nullopt when another owner holds the lock
};

// When an acquisition started at `start` gives up.
SteadyClock::time_point deadline_for(const LockSpec& spec, IfBusy if_busy,
                                     SteadyClock::time_point start);

// What a release that found the server no longer holding the lease says.
LockLost not_held_at_release(const std::string& name, const std::string& server);

class ClientCore : public std::enable_shared_from_this<ClientCore> {
 public:
  // Connects the backend the URL names. The core is destroyed off its renewal thread even when
  // its last owner goes there.
  static std::shared_ptr<ClientCore> connect(std::string_view url, const Options& options);
  ClientCore(const ClientCore&) = delete;
  ClientCore& operator=(const ClientCore&) = delete;

  // nullopt only with IfBusy::return_empty_at_once.
  std::optional<Lease> acquire(const LockSpec& spec, const Key& key, IfBusy if_busy);
  // A term of the election's leadership: its lock taken by no thread (a campaign never
  // re-enters). nullopt only with IfBusy::return_empty_at_once.
  std::optional<Leadership> campaign(const ElectionSpec& election, IfBusy if_busy);
  // The same without a thread, as acquire_async.
  AsyncAcquisition campaign_async(const ElectionSpec& election, Client::CampaignHandler handler);
  // Waits without a thread (Client::acquire_async): `handler` is called once, on the async
  // executor's thread, with no lock of the runtime held. Never throws but for memory.
  AsyncAcquisition acquire_async(const LockSpec& spec, const Key& key,
                                 Client::AcquireHandler handler);
  // Called once per lease, by Lease::release.
  ReleaseOutcome release(LeaseState& lease);
  // The same, by a Lease's destructor: returns once the request has left, without waiting for
  // the outcome, which is logged (and a loss counted) when the reply is read.
  void release_unawaited(LeaseState& lease);

  const std::string& server() const { return *server_; }
  StatsCounters& stats() { return stats_; }

 private:
  // What an acquisition asks the backend for, and what its lease will be.
  struct Preparation {
    LeaseIdentity identity;
    // The owner holds a live lease of the same mode (it re-enters), or the write lease (it
    // reads under the writer's token).
    bool reentry = false;
    bool under_writer = false;
    // A reentry of the exclusive lock or the write side shares the fence of the lease it
    // re-enters.
    std::optional<std::uint64_t> reentered_fence;
    // The acquiring thread's; null for an asynchronous acquisition, which no thread holds.
    std::shared_ptr<ThreadOwner> thread_owner;
  };

  // Who an acquisition's lease is for.
  enum class Holder {
    calling_thread,  // the thread: it re-enters, current() shows the lease
    no_thread,       // an asynchronous acquisition: a token of its own
    election,        // a campaign: a token of its own, and the election's reserved lock type
  };
  void validate(const LockSpec& spec, Holder holder) const;
  // Checks the spec and key and names the lease: on the calling thread's owner token, or on a
  // token of its own.
  Preparation prepare(const LockSpec& spec, const Key& key, Holder holder);
  // acquire_async, for `holder` (no_thread or election).
  AsyncAcquisition acquire_async_for(const LockSpec& spec, const Key& key, Holder holder,
                                     Client::AcquireHandler handler);
  // The lock spec of an election's term.
  static LockSpec term_spec(const ElectionSpec& election);
  // A term of `election` from its lease.
  Leadership term_of(const ElectionSpec& election, Lease lease) const;
  // Acquires what `preparation` names, as the spec says.
  std::optional<Lease> acquire_prepared(Preparation& preparation, const LockSpec& spec,
                                        IfBusy if_busy);
  AcquireRequest request_for(const Preparation& preparation, SteadyClock::time_point deadline);
  // The owner token the calling thread acquires `name` under (its own, or that of the lease it
  // re-enters or reads under), the reentry noted in `preparation`.
  std::string thread_owner_of(const LockSpec& spec, const std::string& name,
                              Preparation& preparation) const;
  // The lease for a grant; without one, the timeout: LockTimeout, or nullopt when
  // `if_busy` says so.
  std::optional<Lease> settle(Preparation& preparation, const LockSpec& spec,
                              const std::optional<Grant>& grant, SteadyClock::time_point start,
                              SteadyClock::time_point deadline, IfBusy if_busy);
  ReleaseRequest release_request(const LeaseState& lease) const;

  // The asynchronous acquisitions under way, each by its serial until its handler has run:
  // what withdraws it (none yet, or none to withdraw) and its lock's name.
  struct PendingAsync {
    std::weak_ptr<PendingAcquisition> pending;
    std::string lock;
  };
  std::uint64_t async_began(std::string lock);
  void async_pending(std::uint64_t serial, std::weak_ptr<PendingAcquisition> pending);
  void async_ended(std::uint64_t serial);
  // As the core closes: withdraws every pending acquisition (AcquisitionCancelled) and waits
  // until their handlers have run, for as long as their withdrawals take.
  void end_pending_async();
  // A grant that came as the core closed, with nobody left to hold it: given back.
  void give_back(const LeaseIdentity& identity);
  // Sends a release nobody waits for: by the backend, when it can without waiting for the
  // reply, else on unawaited_releases_'s thread.
  void send_unawaited(const ReleaseRequest& request, ReleaseReportHandler report);

  ClientCore(std::string_view url, const Options& options);
  ~ClientCore();
  // The deleter of every core: deletes it, or has another thread delete it when called on the
  // core's renewal thread.
  static void destroy(ClientCore* core) noexcept;

  const std::string instance_id_;
  StatsCounters stats_;
  const EventSink events_;
  // Stopped first (its steps use the renewal queue and the backend) but destroyed last: the
  // backend's callback threads (ZooKeeper's completions, Redis's replies) post to it until the
  // backend is gone.
  AsyncExecutor async_executor_;
  std::unique_ptr<Backend> backend_;
  const std::shared_ptr<const std::string> server_;
  // Declared after the backend: its thread stops before the backend goes.
  RenewalQueue renewals_;
  // The same; stopped as the core closes, which gives what is queued a command timeout.
  UnawaitedReleases unawaited_releases_;
  const Millis command_timeout_;
  const double renew_fraction_;
  std::atomic<std::uint64_t> next_serial_{1};
  std::mutex async_mutex_;
  std::condition_variable async_ended_;
  std::map<std::uint64_t, PendingAsync> pending_async_;  // under async_mutex_
  std::uint64_t next_async_serial_ = 1;                  // under async_mutex_
};

}  // namespace distlock::detail
