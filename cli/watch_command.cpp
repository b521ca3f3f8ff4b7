// SPDX-License-Identifier: Apache-2.0
// distlock watch [PATTERN]: the locks listed again and again, and what changed between two
// listings printed as events: grant, release, wait, leave (a waiter granted or gone).
#include <iostream>
#include <map>

#include "command.h"
#include "lock_json.h"
#include "lock_text.h"
#include "stop_signals.h"

namespace distlock::cli {
namespace {

// What one listing holds: each hold and each waiter under "<name> <location>".
struct Snapshot {
  std::map<std::string, std::pair<std::string, admin::Hold>> holds;
  std::map<std::string, std::pair<std::string, admin::Waiter>> waiters;
};

Snapshot snapshot_of(const std::vector<admin::LockState>& locks) {
  Snapshot snapshot;
  for (const auto& lock : locks) {
    for (const auto& hold : lock.holds)
      snapshot.holds.emplace(lock.name + ' ' + hold.location, std::pair{lock.name, hold});
    for (const auto& waiter : lock.waiters)
      snapshot.waiters.emplace(lock.name + ' ' + waiter.location, std::pair{lock.name, waiter});
  }
  return snapshot;
}

class EventWriter {
 public:
  explicit EventWriter(bool json) : json_(json) {}

  void hold(const char* event, const std::string& name, const admin::Hold& hold) const {
    if (json_) {
      std::cout << hold_event_line(event, name, hold) << '\n';
      return;
    }
    std::cout << utc_time(std::chrono::system_clock::now()) << ' ' << event << ' '
              << admin::to_string(hold.kind) << ' ' << name << ' ' << holder_text(hold.holder)
              << " fence=" << hold.fence << " left=" << seconds_text(hold.time_left) << '\n';
  }

  void waiter(const char* event, const std::string& name, const admin::Waiter& waiter) const {
    if (json_) {
      std::cout << waiter_event_line(event, name, waiter) << '\n';
      return;
    }
    std::cout << utc_time(std::chrono::system_clock::now()) << ' ' << event << ' '
              << admin::to_string(waiter.kind) << ' ' << name << ' ' << holder_text(waiter.holder)
              << '\n';
  }

 private:
  const bool json_;
};

// Prints what is in `now` and not in `before` (as `added`), and the reverse (as `removed`).
template <class Entries, class Write>
void diff(const Entries& before, const Entries& now, const char* added, const char* removed,
          Write&& write) {
  for (const auto& [key, entry] : now)
    if (!before.contains(key)) write(added, entry.first, entry.second);
  for (const auto& [key, entry] : before)
    if (!now.contains(key)) write(removed, entry.first, entry.second);
}

}  // namespace

int watch_locks(const GlobalOptions& options, const WatchOptions& watch_options) {
  // Before connecting: the client's threads inherit the blocked signals.
  const StopSignals stop;
  const auto admin = connect(options);
  const EventWriter writer(options.json);
  if (!options.json)
    std::cout << "watching "
              << (watch_options.pattern.empty() ? "all locks" : watch_options.pattern) << " on "
              << admin->server() << " (Ctrl-C to stop)\n";
  Snapshot before;
  for (int listing = 0; watch_options.count == 0 || listing < watch_options.count; ++listing) {
    if (listing > 0 && stop.wait(Millis(watch_options.interval_ms))) break;
    const Snapshot now = snapshot_of(admin->list(watch_options.pattern));
    diff(before.holds, now.holds, "grant", "release",
         [&](const char* event, const std::string& name, const admin::Hold& hold) {
           writer.hold(event, name, hold);
         });
    diff(before.waiters, now.waiters, "wait", "leave",
         [&](const char* event, const std::string& name, const admin::Waiter& waiter) {
           writer.waiter(event, name, waiter);
         });
    std::cout.flush();
    before = now;
  }
  return kOk;
}

}  // namespace distlock::cli
