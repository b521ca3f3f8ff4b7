// SPDX-License-Identifier: Apache-2.0
#include "core/client_core.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <system_error>
#include <thread>

#include <distlock/error.h>
#include <distlock/log.h>

#include "backends/backend_factory.h"
#include "core/acquisition_id.h"
#include "core/held_leases.h"
#include "core/lease_state.h"
#include "core/owner_token.h"

namespace distlock::detail {
namespace {

// Why a thread may find itself waiting for a lock it acquired.
constexpr std::string_view kHandedOverNote =
    " (this thread acquired it earlier and moved the Lease away: a moved lease is held by "
    "whoever has it now, and is not re-entered)";

std::string describe_wait(const LockSpec& spec) {
  if (spec.wait <= Millis::zero()) return "it is held by another owner (try_only)";
  return "not acquired within " + std::to_string(spec.wait.count()) + " ms; another owner holds it";
}

}  // namespace

SteadyClock::time_point deadline_for(const LockSpec& spec, IfBusy if_busy,
                                     SteadyClock::time_point start) {
  if (if_busy == IfBusy::return_empty_at_once || spec.wait <= Millis::zero()) return start;
  if (spec.wait >= std::chrono::duration_cast<Millis>(SteadyClock::time_point::max() - start))
    return SteadyClock::time_point::max();
  return start + spec.wait;
}

std::shared_ptr<ClientCore> ClientCore::connect(std::string_view url, const Options& options) {
  return std::shared_ptr<ClientCore>(new ClientCore(url, options), &ClientCore::destroy);
}

void ClientCore::destroy(ClientCore* core) noexcept {
  if (!core->renewals_.on_its_thread() && !core->async_executor_.on_its_thread() &&
      !core->unawaited_releases_.on_its_thread()) {
    delete core;
    return;
  }
  // The last owner went on the renewal thread (a lost callback that owned the last owning
  // Lease), where the queue would join the thread it runs on; or on the async executor's (an
  // acquisition's handler that dropped the last Client or Lease), likewise, or on the releases'
  // thread (a deferred acquisition's handler, going with its start). A thread of its own
  // destroys the core instead: the queue's join there waits until the renewal thread, which goes on
  // with its batch and uses the core meanwhile, is back in its loop, sees it must stop and ends.
  log(LogLevel::debug,
      "distlock: a client whose last owner went on one of its own threads closes on a thread "
      "of its own");
  try {
    std::thread([core] { delete core; }).detach();
  } catch (const std::system_error& error) {
    // Left alive rather than destroyed where it cannot be.
    log(LogLevel::error, std::string("distlock: a client whose last lease a lost-lease callback "
                                     "owned stays open: no thread could be started to close it (") +
                             error.what() + ")");
  }
}

ClientCore::ClientCore(std::string_view url, const Options& options)
    : instance_id_(make_instance_id()),
      events_(options.on_event),
      backend_(make_backend(url, options, stats_)),
      server_(std::make_shared<const std::string>(backend_->server())),
      renewals_(*backend_, stats_, events_, options.renew_fraction),
      unawaited_releases_(*backend_, *server_),
      command_timeout_(options.command_timeout),
      renew_fraction_(options.renew_fraction) {
  backend_->set_loss_alarm([this] { renewals_.renew_all_now(); });
}

// The renewal queue goes before the backend: the backend must not sound the alarm into it
// meanwhile.
ClientCore::~ClientCore() {
  end_pending_async();
  unawaited_releases_.stop(SteadyClock::now() + command_timeout_);
  async_executor_.stop();
  backend_->set_loss_alarm({});
}

void ClientCore::validate(const LockSpec& spec, Holder holder) const {
  const std::string type(spec.type);
  if (spec.type.empty()) throw ConfigError(type, server(), "the lock type is empty");
  if (holder != Holder::election && spec.type == kElectionLockType)
    throw ConfigError(type, server(),
                      "the lock type \"elections\" is reserved: elections' locks have it "
                      "(distlock/election.h); choose another type");
  if (spec.ttl <= Millis::zero()) throw ConfigError(type, server(), "the ttl must be positive");
  // What spec() checks when it builds a spec, for specs put together field by field.
  if (spec.permits > 0 && spec.mode != Mode::exclusive)
    throw ConfigError(type, server(), "permits makes a semaphore, which has no read or write side");
  if (spec.fair && (spec.mode != Mode::exclusive || spec.permits > 0))
    throw ConfigError(type, server(), "fair applies to exclusive locks only");
  if (spec.mode != Mode::exclusive && !backend_->supports_read_write())
    throw ConfigError(type, server(),
                      "read-write locks (distlock::read, distlock::write) need a redis:// (one "
                      "server, Sentinel or Cluster), zookeeper:// or memory:// server");
  if (spec.permits > 0 && !backend_->supports_permits())
    throw ConfigError(type, server(),
                      "semaphores (distlock::permits) need a redis:// (one server, Sentinel or "
                      "Cluster), zookeeper:// or memory:// server");
  if (spec.fair && !backend_->supports_fair())
    throw ConfigError(type, server(),
                      "fair locks (distlock::fair) need a redis:// (one server, Sentinel or "
                      "Cluster), zookeeper:// or memory:// server");
  if (spec.hold_at_least > Millis::zero() && !backend_->supports_keeping())
    throw ConfigError(type, server(),
                      "hold_at_least needs a server that can keep a released lock until a time "
                      "(redis://, its Sentinel, Cluster and Redlock kinds, or memory://)");
}

ClientCore::Preparation ClientCore::prepare(const LockSpec& spec, const Key& key, Holder holder) {
  validate(spec, holder);
  std::string name;
  try {
    name = lock_name(spec.type, key);
  } catch (const ConfigError& error) {
    throw ConfigError(error.lock(), server(), error.reason());
  }
  if (holder == Holder::election && name.size() == kElectionLockType.size() + 1)
    throw ConfigError(name, server(), "the election name is empty");
  // A lease cannot outlast what the backend can vouch for without the server.
  const Millis ttl = std::min(spec.ttl, backend_->lease_time_limit().value_or(spec.ttl));
  Preparation preparation;
  std::string owner;
  if (holder == Holder::calling_thread) {
    owner = thread_owner_of(spec, name, preparation);
  } else {
    owner = async_owner_token(instance_id_, next_serial_++);
  }
  preparation.identity = {std::move(name),
                          make_acquisition_id(spec.type),
                          std::move(owner),
                          0,
                          ttl,
                          {spec.mode, spec.permits, spec.fair, holder == Holder::election},
                          std::string(spec.type)};
  return preparation;
}

std::string ClientCore::thread_owner_of(const LockSpec& spec, const std::string& name,
                                        Preparation& preparation) const {
  const bool semaphore = spec.permits > 0;
  // A reentry holds under the token of the lease it re-enters; a reader that holds the write
  // lock reads under the writer's; anything else under the thread's token of the moment.
  const LeaseState* reentered =
      semaphore ? nullptr : HeldLeases::holding(instance_id_, name, spec.mode);
  const LeaseState* writing =
      spec.mode == Mode::read ? HeldLeases::holding(instance_id_, name, Mode::write) : nullptr;
  if (spec.mode == Mode::write && HeldLeases::holding(instance_id_, name, Mode::read))
    throw ConfigError(name, server(),
                      "this thread holds the read lock: taking the write lock would wait for "
                      "itself (a read lock cannot be upgraded; release it first)");
  preparation.thread_owner = ThreadOwner::of_this_thread();
  // A reentry of the exclusive lock or the write side shares the fence of the lease it
  // re-enters (each read has a fence of its own). The backend's may be higher: a Redlock round
  // can reach a master the outer round missed, whose own hold counts from its own fence.
  if (reentered != nullptr && spec.mode != Mode::read)
    preparation.reentered_fence = reentered->identity().fence;
  preparation.reentry = reentered != nullptr;
  preparation.under_writer = writing != nullptr;
  return reentered != nullptr ? reentered->identity().owner
         : writing != nullptr ? writing->identity().owner
                              : preparation.thread_owner->token(instance_id_);
}

AcquireRequest ClientCore::request_for(const Preparation& preparation,
                                       SteadyClock::time_point deadline) {
  return {preparation.identity.hold(), preparation.identity.ttl, preparation.reentry,
          preparation.under_writer, deadline};
}

std::optional<Lease> ClientCore::settle(Preparation& preparation, const LockSpec& spec,
                                        const std::optional<Grant>& grant,
                                        SteadyClock::time_point start,
                                        SteadyClock::time_point deadline, IfBusy if_busy) {
  LeaseIdentity& identity = preparation.identity;
  // Without a grant the lock was taken; the backend waited for it if the deadline let it.
  if (grant ? grant->contended : deadline > start) events_.emit(EventKind::contended, spec.type);
  if (!grant) {
    ++stats_.timeouts;
    events_.emit(EventKind::timeout, spec.type, millis_since(start));
    if (if_busy == IfBusy::return_empty_at_once) return std::nullopt;
    std::string reason = describe_wait(spec);
    if (preparation.thread_owner && HeldLeases::handed_over(identity.name))
      reason += kHandedOverNote;
    throw LockTimeout(identity.name, server(), reason);
  }
  identity.fence = preparation.reentered_fence.value_or(grant->fence);
  // Counted from the reply, which comes after the grant: the lock is kept at least as long.
  const auto keep_until = spec.hold_at_least > Millis::zero()
                              ? SteadyClock::now() + spec.hold_at_least
                              : SteadyClock::time_point{};
  auto state = std::make_shared<LeaseState>(server_, std::move(identity), grant->sent_at,
                                            next_serial_++, keep_until, preparation.thread_owner);
  // From here the lease owns the hold: if anything below throws, its destructor releases.
  Lease lease(shared_from_this(), state);
  ++stats_.acquired;
  events_.emit(EventKind::acquired, spec.type, millis_since(start));
  if (spec.renew) renewals_.add(state, grant->sent_at);
  // A thread's lease is on its stack for current() and reentry; an asynchronous one on none.
  if (preparation.thread_owner) HeldLeases::push(std::move(state));
  return std::optional<Lease>(std::in_place, Lease::Relocation{}, std::move(lease));
}

std::optional<Lease> ClientCore::acquire(const LockSpec& spec, const Key& key, IfBusy if_busy) {
  Preparation preparation = prepare(spec, key, Holder::calling_thread);
  return acquire_prepared(preparation, spec, if_busy);
}

LockSpec ClientCore::term_spec(const ElectionSpec& election) {
  LockSpec spec;
  spec.type = LockType(kElectionLockType);
  spec.ttl = election.ttl;
  spec.wait = election.wait;
  return spec;
}

Leadership ClientCore::term_of(const ElectionSpec& election, Lease lease) const {
  // Half the span between a renewal's due time and the end of the validity it would extend: the
  // renewal's time to get through, and then the leader's to stop.
  const auto stop_margin =
      std::chrono::duration_cast<Millis>(lease.ttl() * ((1.0 - renew_fraction_) / 2.0));
  return {std::string(election.name), election.stop_when, stop_margin, std::move(lease)};
}

std::optional<Leadership> ClientCore::campaign(const ElectionSpec& election, IfBusy if_busy) {
  const LockSpec spec = term_spec(election);
  Preparation preparation = prepare(spec, Key(std::string(election.name)), Holder::election);
  auto lease = acquire_prepared(preparation, spec, if_busy);
  if (!lease) return std::nullopt;
  return term_of(election, std::move(*lease));
}

AsyncAcquisition ClientCore::campaign_async(const ElectionSpec& election,
                                            Client::CampaignHandler handler) {
  return acquire_async_for(
      term_spec(election), Key(std::string(election.name)), Holder::election,
      [this, election, handler = std::move(handler)](std::exception_ptr error, Lease lease) {
        if (error) {
          handler(std::move(error), Leadership());
          return;
        }
        handler(nullptr, term_of(election, std::move(lease)));
      });
}

std::optional<Lease> ClientCore::acquire_prepared(Preparation& preparation, const LockSpec& spec,
                                                  IfBusy if_busy) {
  const auto start = SteadyClock::now();
  const auto deadline = deadline_for(spec, if_busy, start);
  const AcquireRequest request = request_for(preparation, deadline);
  // This client's own release of the lock, still on its way, goes first; a try waits for it
  // too, as a command waits behind the release on Redis's one connection, for as long as a
  // command may take.
  if (!unawaited_releases_.wait_until_released(request.hold.name,
                                               std::max(deadline, start + command_timeout_)))
    return settle(preparation, spec, std::nullopt, start, deadline, if_busy);
  const auto grant = backend_->acquire(request);
  return settle(preparation, spec, grant, start, deadline, if_busy);
}

LockLost not_held_at_release(const std::string& name, const std::string& server) {
  return {name, server,
          "the server no longer held this lease when it was released (it ran out or was taken "
          "over); work done under it may have overlapped another holder"};
}

ReleaseRequest ClientCore::release_request(const LeaseState& lease) const {
  const auto keep_for = std::chrono::ceil<Millis>(lease.keep_until() - SteadyClock::now());
  return {lease.identity().hold(), std::max(keep_for, Millis::zero()), lease.valid_until()};
}

ReleaseOutcome ClientCore::release(LeaseState& lease) {
  renewals_.remove(lease);
  const std::string& type = lease.identity().type;
  ReleaseOutcome outcome = ReleaseOutcome::released;
  try {
    outcome = backend_->release(release_request(lease));
  } catch (...) {
    // The caller hears why; the counters and the hook hear that it happened.
    ++stats_.release_failures;
    events_.emit(EventKind::release_failed, type);
    throw;
  }
  events_.emit(EventKind::released, type, Millis{0}, millis_since(lease.granted_at()));
  // A loss the renewals found was reported then.
  if (outcome == ReleaseOutcome::not_held && !lease.lost()) events_.emit(EventKind::lost, type);
  return outcome;
}

void ClientCore::release_unawaited(LeaseState& lease) {
  renewals_.remove(lease);
  const std::string& type = lease.identity().type;
  events_.emit(EventKind::released, type, Millis{0}, millis_since(lease.granted_at()));
  // The report may come after the lease and its state are gone: it keeps what it names. The
  // backend it comes from goes before the events it counts (the members' order).
  send_unawaited(release_request(lease),
                 [this, type, name = lease.identity().name, server = server_,
                  lost_before = lease.lost()](const ReleaseReport& report) {
                   if (report.outcome == ReleaseOutcome::released) return;
                   if (report.outcome == ReleaseOutcome::not_held) {
                     if (!lost_before) events_.emit(EventKind::lost, type);
                     log(LogLevel::error, std::string(not_held_at_release(name, *server).what()) +
                                              " (while releasing on scope exit)");
                     return;
                   }
                   ++stats_.release_failures;
                   events_.emit(EventKind::release_failed, type);
                   log(LogLevel::error, report.failure +
                                            " (while releasing on scope exit: the lock stays taken "
                                            "until its ttl runs out)");
                 });
}

void ClientCore::send_unawaited(const ReleaseRequest& request, ReleaseReportHandler report) {
  if (backend_->sends_releases_unawaited())
    backend_->release_unawaited(request, report);
  else
    unawaited_releases_.release(request, std::move(report));
}

}  // namespace distlock::detail
