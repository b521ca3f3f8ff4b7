// SPDX-License-Identifier: Apache-2.0
#include "lock_text.h"

#include <ctime>
#include <iomanip>
#include <sstream>

namespace distlock::cli {
namespace {

const char* const kNone = "-";

std::string or_none(const std::string& text) { return text.empty() ? kNone : text; }

std::string fence_text(const admin::Hold& hold) {
  return hold.fence == 0 ? kNone : std::to_string(hold.fence);
}

std::string acquired_text(const admin::Hold& hold) {
  return hold.acquired_at ? utc_time(*hold.acquired_at) : kNone;
}

std::string hold_notes(const admin::Hold& hold) {
  std::string notes;
  if (hold.count > 1) notes += " (held " + std::to_string(hold.count) + " times, reentrant)";
  if (hold.kept) notes += " (released; kept taken by hold_at_least until it expires)";
  return notes;
}

}  // namespace

std::string utc_time(std::chrono::system_clock::time_point time) {
  const auto since_epoch = time.time_since_epoch();
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(since_epoch);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch - seconds).count();
  const std::time_t whole = seconds.count();
  std::tm utc{};
  gmtime_r(&whole, &utc);
  std::ostringstream text;
  text << std::put_time(&utc, "%Y-%m-%dT%H:%M:%S") << '.' << std::setw(3) << std::setfill('0')
       << millis << 'Z';
  return text.str();
}

std::string seconds_text(std::optional<Millis> duration) {
  if (!duration) return kNone;
  std::ostringstream text;
  text << std::fixed << std::setprecision(1) << static_cast<double>(duration->count()) / 1000.0
       << 's';
  return text.str();
}

std::string holder_text(const admin::Holder& holder) {
  std::string text;
  const auto add = [&](const char* label, const std::string& value) {
    if (value.empty()) return;
    if (!text.empty()) text += ' ';
    text += label;
    text += '=';
    text += value;
  };
  add("id", holder.acquisition_id);
  add("host", holder.host);
  add("pid", holder.pid == 0 ? "" : std::to_string(holder.pid));
  return text.empty() ? "unknown" : text;
}

void write_lock_table(std::ostream& out, const std::vector<admin::LockState>& locks) {
  std::vector<std::vector<std::string>> rows = {
      {"NAME", "KIND", "ACQUISITION", "HOST", "PID", "ACQUIRED", "LEFT", "FENCE", "WAITERS"}};
  for (const auto& lock : locks) {
    const std::string waiters = std::to_string(lock.waiters.size());
    for (const auto& hold : lock.holds)
      rows.push_back({lock.name, admin::to_string(hold.kind),
                      or_none(hold.holder.acquisition_id) + (hold.kept ? " (kept)" : ""),
                      or_none(hold.holder.host),
                      hold.holder.pid == 0 ? kNone : std::to_string(hold.holder.pid),
                      acquired_text(hold), seconds_text(hold.time_left), fence_text(hold),
                      waiters});
    if (lock.holds.empty() && !lock.waiters.empty())
      rows.push_back({lock.name, admin::to_string(lock.waiters.front().kind), "(none)", kNone,
                      kNone, kNone, kNone, kNone, waiters});
  }
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    out << line << '\n';
  }
}

void write_lock_detail(std::ostream& out, const admin::LockState& lock, const std::string& server) {
  out << "lock '" << lock.name << "' on " << server << '\n';
  if (lock.holds.empty()) out << "  held by nobody\n";
  for (const auto& hold : lock.holds) {
    out << "  " << admin::to_string(hold.kind) << " hold: " << holder_text(hold.holder)
        << hold_notes(hold) << '\n'
        << "    acquired " << acquired_text(hold) << ", time left "
        << (hold.time_left ? seconds_text(hold.time_left) : "until its session ends") << ", fence "
        << fence_text(hold) << '\n'
        << "    at " << hold.location << '\n';
  }
  if (lock.waiters.empty()) {
    out << "  no waiters the server knows of\n";
    return;
  }
  out << "  waiters, in order:\n";
  for (std::size_t i = 0; i < lock.waiters.size(); ++i) {
    const auto& waiter = lock.waiters[i];
    out << "    " << i + 1 << ". " << admin::to_string(waiter.kind) << ' '
        << holder_text(waiter.holder) << " at " << waiter.location << '\n';
  }
}

void write_leader(std::ostream& out, const std::string& election, const admin::LockState& lock,
                  const std::string& server) {
  const admin::Hold& leader = lock.holds.front();
  out << "election '" << election << "' on " << server << '\n'
      << "  leader: " << holder_text(leader.holder) << '\n'
      << "    epoch " << fence_text(leader) << ", since " << acquired_text(leader) << ", time left "
      << (leader.time_left ? seconds_text(leader.time_left) : "until its session ends") << '\n'
      << "    at " << leader.location << '\n'
      << "  campaigners waiting: " << lock.waiters.size() << '\n';
}

std::string released_text(const admin::ReleasedHold& released, const std::string& server) {
  const admin::Hold& hold = released.hold;
  return "distlock: lock '" + released.name + "' on " + server + ": force-released the " +
         admin::to_string(hold.kind) + " hold of " + holder_text(hold.holder) + hold_notes(hold) +
         ", fence " + fence_text(hold) + ", at " + hold.location;
}

}  // namespace distlock::cli
