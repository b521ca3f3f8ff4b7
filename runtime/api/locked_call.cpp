// SPDX-License-Identifier: Apache-2.0
#include <distlock/annotation.h>
#include <distlock/locked_call.h>

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <string>

#include <distlock/log.h>

#include "core/held_leases.h"
#include "util/steady_clock.h"

namespace distlock {
namespace {

bool skips_when_busy(const LockSpec& spec) { return spec.on_busy != OnBusy::raise; }

void log_loss(const std::optional<LockLost>& lost) {
  if (lost)
    detail::log(LogLevel::error, std::string(lost->what()) + " (while giving up the locks)");
}

}  // namespace

namespace annotation_detail {
void unreachable_busy_result() {
  throw std::logic_error(
      "distlock: a guard that raises LockTimeout asked for a busy result (distlock-weave and "
      "<distlock/annotation.h> disagree)");
}
}  // namespace annotation_detail

LockedCall::LockedCall(const LockSpec& spec, const Key* keys, std::size_t count, Client& client)
    : on_lost_(spec.on_lost), uncaught_at_start_(std::uncaught_exceptions()) {
  std::vector<Key> locks = lock_keys(spec, keys, count);
  if (locks.size() > 1)
    take_each(spec, locks, client);
  else
    take_one(spec, locks.front(), client);
}

LockedCall::LockedCall(const LockSpec& spec, TakenLeases taken)
    : on_lost_(spec.on_lost), uncaught_at_start_(std::uncaught_exceptions()) {
  if (taken.leases.empty()) return;
  // Reserved: a vector that grew would move the leases.
  more_.reserve(taken.leases.size() - 1);
  for (Lease& lease : taken.leases) {
    if (first_)
      more_.emplace_back(Lease::Relocation{}, std::move(lease));
    else
      first_.emplace(Lease::Relocation{}, std::move(lease));
  }
}

std::vector<Key> LockedCall::lock_keys(const LockSpec& spec, const Key* keys, std::size_t count) {
  if (!spec.per_key || count < 2) {
    Key key;
    for (std::size_t i = 0; i < count; ++i) key.append_parts(keys[i]);
    return {key};
  }
  std::vector<std::pair<std::string, const Key*>> named;
  named.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    named.emplace_back(lock_name(spec.type, keys[i]), &keys[i]);
  std::sort(named.begin(), named.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  named.erase(std::unique(named.begin(), named.end(),
                          [](const auto& a, const auto& b) { return a.first == b.first; }),
              named.end());
  std::vector<Key> ordered;
  ordered.reserve(named.size());
  for (const auto& [name, key] : named) ordered.push_back(*key);
  return ordered;
}

void LockedCall::take_one(const LockSpec& spec, const Key& key, Client& client) {
  try {
    first_.emplace(Lease::Relocation{}, client.acquire(spec, key));
  } catch (const LockTimeout&) {
    if (!skips_when_busy(spec)) throw;
  }
}

// All or none within the one wait, in the order lock_keys gives.
void LockedCall::take_each(const LockSpec& spec, const std::vector<Key>& locks, Client& client) {
  const auto start = detail::SteadyClock::now();
  LockSpec each = spec;
  // Reserved: a vector that grew would move the leases, which hands them over.
  more_.reserve(locks.size() - 1);
  try {
    for (const Key& key : locks) {
      if (spec.wait != kWaitForever && spec.wait > Millis::zero()) {
        const auto spent = std::chrono::duration_cast<Millis>(detail::SteadyClock::now() - start);
        each.wait = std::max(spec.wait - spent, Millis::zero());
      }
      if (first_)
        more_.emplace_back(Lease::Relocation{}, client.acquire(each, key));
      else
        first_.emplace(Lease::Relocation{}, client.acquire(each, key));
    }
  } catch (const LockTimeout&) {
    log_loss(release_all());
    if (!skips_when_busy(spec)) throw;
    return;
  } catch (...) {
    log_loss(release_all());
    throw;
  }
  detail::HeldLeases::group_last(locks.size());
}

// NOLINTNEXTLINE(bugprone-exception-escape): throwing on return is what on_lost(fail) asks
LockedCall::~LockedCall() noexcept(false) {
  if (busy()) return;
  std::optional<LockLost> loss;
  for (const Lease* lease : leases()) {
    if (!loss && !lease->valid())
      loss.emplace(lease->name(), lease->server(),
                   "the lease was lost while the locked function ran: its result was computed "
                   "without the lock");
  }
  if (on_lost_ == OnLost::report) {
    // Nothing waits for the release's verdict: a loss it finds is logged when its reply is read.
    drop_all();
  } else {
    std::optional<LockLost> lost_at_release = release_all();
    if (!loss) loss = std::move(lost_at_release);
  }
  if (!loss) return;
  if (on_lost_ == OnLost::fail && std::uncaught_exceptions() == uncaught_at_start_) throw *loss;
  detail::log(LogLevel::error, std::string(loss->what()) + " (on return from the locked call)");
}

std::vector<const Lease*> LockedCall::leases() const {
  std::vector<const Lease*> all;
  if (!first_) return all;
  all.push_back(&*first_);
  for (const Lease& lease : more_) all.push_back(&lease);
  return all;
}

void LockedCall::drop_all() noexcept {
  while (!more_.empty()) more_.pop_back();
  first_.reset();
}

// Last taken first; every lease is released even when one fails. Returns the first LockLost
// (the server no longer had the lease); other failures are logged.
std::optional<LockLost> LockedCall::release_all() noexcept {
  std::optional<LockLost> lost;
  const auto release = [&](Lease& lease) {
    try {
      lease.release();
    } catch (const LockLost& error) {
      if (!lost) lost = error;
    } catch (const std::exception& error) {
      detail::log(LogLevel::error, std::string(error.what()) + " (while releasing on return)");
    }
  };
  while (!more_.empty()) {
    release(more_.back());
    more_.pop_back();
  }
  if (first_) {
    release(*first_);
    first_.reset();
  }
  return lost;
}

}  // namespace distlock
