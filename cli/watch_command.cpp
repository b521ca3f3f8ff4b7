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

struct WatchOptions {
  std::string pattern;
  int count = 0;  // listings to take; 0: until stopped
  int interval_ms = 1000;
};

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
      write_json(event, name, to_json(hold));
      return;
    }
    std::cout << utc_time(std::chrono::system_clock::now()) << ' ' << event << ' '
              << admin::to_string(hold.kind) << ' ' << name << ' ' << holder_text(hold.holder)
              << " fence=" << hold.fence << " left=" << seconds_text(hold.time_left) << '\n';
  }

  void waiter(const char* event, const std::string& name, const admin::Waiter& waiter) const {
    if (json_) {
      write_json(event, name, to_json(waiter));
      return;
    }
    std::cout << utc_time(std::chrono::system_clock::now()) << ' ' << event << ' '
              << admin::to_string(waiter.kind) << ' ' << name << ' ' << holder_text(waiter.holder)
              << '\n';
  }

 private:
  static void write_json(const char* event, const std::string& name, nlohmann::json details) {
    details["event"] = event;
    details["name"] = name;
    details["time"] = utc_time(std::chrono::system_clock::now());
    std::cout << details.dump() << '\n';
  }

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

int watch(const GlobalOptions& options, const WatchOptions& watch_options) {
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

}  // namespace

Subcommand add_watch_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "watch",
      "Watch the locks live: list them once a second and print what changed as events: grant, "
      "release, wait, leave (a waiter granted or gone). The first listing's holds and waiters "
      "show as grant and wait. Stops on Ctrl-C or SIGTERM (exit 0).");
  auto watch_options = std::make_shared<WatchOptions>();
  app->add_option("PATTERN", watch_options->pattern,
                  "Only locks whose names match this shell glob");
  app->add_option("--count,--iterations", watch_options->count,
                  "Stop after this many listings (default: until stopped)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--interval-ms", watch_options->interval_ms,
                  "Milliseconds between listings (default 1000)")
      ->check(CLI::PositiveNumber);
  return {app,
          [watch_options](const GlobalOptions& options) { return watch(options, *watch_options); }};
}

}  // namespace distlock::cli
