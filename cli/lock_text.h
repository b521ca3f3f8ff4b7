// SPDX-License-Identifier: Apache-2.0
// The locks as text for people: one line per hold (list, watch), one lock in full (show).
#pragma once

#include <chrono>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <distlock/admin.h>
#include <distlock/duration.h>

namespace distlock::cli {

// "2026-11-26T02:30:01.250Z"
std::string utc_time(std::chrono::system_clock::time_point time);
// "12.3s"; "-" for none.
std::string seconds_text(std::optional<Millis> duration);
// "id=<id> host=<host> pid=<pid>", leaving out what is unknown; "unknown" when all is.
std::string holder_text(const admin::Holder& holder);

// A table: NAME KIND ACQUISITION HOST PID ACQUIRED LEFT FENCE WAITERS, a line per hold (a
// lock only waited for: one line with its first waiter's kind and no holder).
void write_lock_table(std::ostream& out, const std::vector<admin::LockState>& locks);
// Every hold and every waiter of one lock, waiters in their order.
void write_lock_detail(std::ostream& out, const admin::LockState& lock, const std::string& server);
// Who leads an election (its lock's hold; the term's epoch is its fence), and how many wait.
void write_leader(std::ostream& out, const std::string& election, const admin::LockState& lock,
                  const std::string& server);
// One line per released hold: what a force-release removed.
std::string released_text(const admin::ReleasedHold& released, const std::string& server);

}  // namespace distlock::cli
