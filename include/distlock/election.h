// SPDX-License-Identifier: Apache-2.0
// Leader election: at most one leader of an election at a time, told to stop before anyone else
// can lead.
//
//   constexpr auto scheduler = distlock::election("scheduler", 10s);
//   distlock::Leadership leadership = client->campaign(scheduler);   // waits to be elected
//   while (!leadership.stop_requested()) schedule_next(leadership.epoch());
//
// A leadership is the lease of the election's lock ("elections:<name>"), renewed while it is
// held: its epoch is the lease's fence (strictly increasing per election, the fencing token of
// the term), and it ends when the Leadership is resigned or destroyed. The stop is requested as
// soon as the leader can no longer prove it leads, while the lease is still valid: the rest of
// the lease is the time the leader has to stop (docs/guide.md, "Leader election").
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <distlock/duration.h>
#include <distlock/lease.h>
#include <distlock/spec.h>

namespace distlock {

namespace detail {
class LeaseState;
}  // namespace detail

// The lock type every election's lock has: "elections:<name>". spec() refuses it for locks.
inline constexpr std::string_view kElectionLockType = "elections";

// When a leader is told to stop (its StopToken's stop_requested()).
enum class StopWhen {
  // As soon as the leadership is in doubt: a renewal failed (the server could not be asked), or
  // none was confirmed in time (by the middle of the span from a renewal's due time to the end
  // of the lease's validity: with the default renew_fraction, its last third). The default.
  doubtful,
  // Only once the lease is no longer valid (lost, resigned, or run out): Curator's
  // SessionConnectionStateErrorPolicy. A new leader may then be elected as the stop comes.
  invalid,
};

// An election and how to campaign in it: what election() returns and Client::campaign takes.
struct ElectionSpec {
  LockType name;               // the election's name
  Millis ttl{0};               // the leadership's lease time, renewed while it is held
  Millis wait = kWaitForever;  // how long a campaign waits to be elected; zero: try once
  StopWhen stop_when = StopWhen::doubtful;  // when the leader is told to stop
};

namespace option {
struct StopWhenInvalid {};  // stop_when_invalid
}  // namespace option

// Tell the leader to stop only when its lease is no longer valid (StopWhen::invalid).
inline constexpr option::StopWhenInvalid stop_when_invalid{};

namespace detail {
[[noreturn]] inline void election_error(std::string_view name, const std::string& what) {
  throw ConfigError(std::string(name), "", "distlock::election(): " + what);
}
[[noreturn]] inline void error_election_name_must_not_be_empty(std::string_view name) {
  election_error(name, "the election name must not be empty");
}
[[noreturn]] inline void error_election_name_longer_than_128_bytes(std::string_view name) {
  election_error(name.substr(0, 64), "the election name is longer than " +
                                         std::to_string(kMaxLockTypeLength) + " bytes");
}
[[noreturn]] inline void error_election_ttl_must_be_positive(std::string_view name) {
  election_error(name, "the ttl must be positive");
}
[[noreturn]] inline void error_election_wait_must_not_be_negative(std::string_view name) {
  election_error(name, "wait must not be negative");
}

constexpr void apply(ElectionSpec& spec, option::Wait wait) {
  if (wait.value < Millis::zero()) error_election_wait_must_not_be_negative(spec.name);
  spec.wait = wait.value;
}
constexpr void apply(ElectionSpec& spec, option::TryOnly) { spec.wait = Millis::zero(); }
constexpr void apply(ElectionSpec& spec, option::StopWhenInvalid) {
  spec.stop_when = StopWhen::invalid;
}
}  // namespace detail

// An election: its name (as a lock type is checked: a literal at compile time), the lease time
// of its leadership, and wait(limit), try_only or stop_when_invalid.
template <class... Options>
constexpr ElectionSpec election(TypeName name, DurationArg ttl, Options... options) {
  ElectionSpec result;
  if (name.value().size() > kMaxLockTypeLength)
    detail::error_election_name_longer_than_128_bytes(name.value());
  result.name = LockType(name.value());
  result.ttl = ttl.value();
  if (result.name.empty()) detail::error_election_name_must_not_be_empty(result.name);
  if (result.ttl <= Millis::zero()) detail::error_election_ttl_must_be_positive(result.name);
  (detail::apply(result, options), ...);
  return result;
}

// Whether the leader should stop: a view of one leadership that any thread may poll. Judged
// against the monotonic clock at each call, so a leader that was paused (a stall, SIGSTOP, a
// frozen VM) past the point where its leadership came into doubt sees it at its first call,
// before any thread of the runtime has run again.
class StopToken {
 public:
  // A token that never asks to stop.
  StopToken() noexcept = default;
  // The library's own: Leadership::stop_token() makes them. With StopWhen::doubtful the stop
  // comes once `margin` or less of the lease's validity is left without a renewal.
  StopToken(std::shared_ptr<const detail::LeaseState> lease, StopWhen stop_when,
            Millis margin) noexcept;

  // True once the leader should stop: always true from then on.
  bool stop_requested() const noexcept;
  // Whether this token can ask to stop at all (false for a default-constructed one).
  bool stop_possible() const noexcept { return lease_ != nullptr; }

 private:
  std::shared_ptr<const detail::LeaseState> lease_;
  StopWhen stop_when_ = StopWhen::doubtful;
  Millis margin_{0};
};

// One term of leadership of an election. Move-only; resigns when destroyed, without waiting for
// the server's verdict where the backend allows (as a Lease's destructor releases).
class Leadership {
 public:
  // Holds nothing, as a moved-from one: valid() is false, stop_requested() true, resign() does
  // nothing, and the other accessors throw std::logic_error.
  Leadership() noexcept = default;
  // The library's own: Client::campaign makes them. `stop_margin`: as StopToken's margin.
  Leadership(std::string election, StopWhen stop_when, Millis stop_margin, Lease lease);
  // Takes `other`'s term; `other` holds nothing after.
  Leadership(Leadership&& other) noexcept = default;
  // Resigns the leadership this one held (as the destructor does), then takes `other`'s.
  Leadership& operator=(Leadership&& other) noexcept = default;
  Leadership(const Leadership&) = delete;
  Leadership& operator=(const Leadership&) = delete;
  // Resigns, as the Lease it holds is released when destroyed.
  ~Leadership() = default;

  // The election's name, as election() was given it.
  const std::string& election() const;
  // The term's epoch: its lease's fence, greater than every earlier term's of this election.
  // Stamp what the leader writes with it, and have the store refuse older epochs.
  std::uint64_t epoch() const;
  // When the term stops being valid for sure, as Lease::valid_until().
  std::chrono::steady_clock::time_point valid_until() const;
  // True while the term holds: not resigned, not known lost, and before valid_until(). No I/O.
  bool valid() const;
  // Whether the leader should stop now (StopToken::stop_requested()).
  bool stop_requested() const noexcept;
  // A token that tells the same, for the code the leader runs.
  StopToken stop_token() const;
  // The term's lease: for distlock::checked() (distlock/current.h) and what else takes a lease.
  const Lease& lease() const;

  // Resigns now and waits for the server's verdict, so that another campaigner can be elected at
  // once. Throws LockLost if the server no longer had this term (it ran out or was taken over),
  // BackendUnavailable if it could not be told. A second call does nothing.
  void resign();

 private:
  std::string election_;
  StopWhen stop_when_ = StopWhen::doubtful;
  Millis stop_margin_{0};
  Lease lease_;
};

}  // namespace distlock
