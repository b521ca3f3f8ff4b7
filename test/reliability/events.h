// SPDX-License-Identifier: Apache-2.0
// The checker's shared vocabulary: CLOCK_MONOTONIC time stamps (comparable across the
// processes of one machine) and the per-worker event log, one line per event:
//
//   <kind> key=value key=value ...
//
// Every line is written with one write(2) to a file opened O_APPEND, so a worker that is
// SIGKILLed leaves every line it finished and no half line.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distlock::reliability {

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

// Nanoseconds of steady_clock (CLOCK_MONOTONIC on Linux), the time base of every record.
std::int64_t mono_ns();
std::int64_t to_ns(Clock::time_point time);
// CLOCK_REALTIME minus CLOCK_MONOTONIC, in ns: how a process sees the wall clock (a faked
// clock shows up here).
std::int64_t wall_minus_mono_ns();

// One log line being built: EventLine("grant").add("w", 3).add("f", fence).
class EventLine {
 public:
  explicit EventLine(std::string_view kind);
  EventLine& add(std::string_view key, std::int64_t value);
  EventLine& add(std::string_view key, std::uint64_t value);
  EventLine& add(std::string_view key, int value) { return add(key, std::int64_t{value}); }
  // Spaces and newlines in text are replaced, so the line stays one line of fields.
  EventLine& add(std::string_view key, std::string_view text);
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// An append-only log file shared by the threads of a process.
class EventLog {
 public:
  explicit EventLog(const std::filesystem::path& path);
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;
  void write(const EventLine& line);

 private:
  int fd_ = -1;
};

// A parsed line.
struct Event {
  std::string kind;
  std::map<std::string, std::string, std::less<>> fields;

  bool has(std::string_view key) const { return fields.find(key) != fields.end(); }
  std::int64_t integer(std::string_view key, std::int64_t otherwise = 0) const;
  std::uint64_t unsigned_integer(std::string_view key, std::uint64_t otherwise = 0) const;
  std::string text(std::string_view key) const;
};

std::optional<Event> parse_event(std::string_view line);
// Every well-formed line of a log file, in order.
std::vector<Event> read_events(const std::filesystem::path& path);

// Human-readable durations: "1.234 s", "56 ms".
std::string format_ms(double milliseconds);
std::string format_ns(std::int64_t nanoseconds);

// "500ms", "3s", "2m", "1m30s", or a bare number of milliseconds. Throws
// std::invalid_argument when the text is none of these.
Millis parse_duration(std::string_view text);

}  // namespace distlock::reliability
