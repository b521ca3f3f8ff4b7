// SPDX-License-Identifier: Apache-2.0
#include "events.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace distlock::reliability {

std::int64_t to_ns(Clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
}

std::int64_t mono_ns() { return to_ns(Clock::now()); }

std::int64_t wall_minus_mono_ns() {
  // Straight from the system calls: this is exactly what an interposed clock (libfaketime)
  // changes for the process.
  timespec wall{};
  timespec mono{};
  ::clock_gettime(CLOCK_REALTIME, &wall);
  ::clock_gettime(CLOCK_MONOTONIC, &mono);
  return (static_cast<std::int64_t>(wall.tv_sec) - mono.tv_sec) * 1'000'000'000 +
         (static_cast<std::int64_t>(wall.tv_nsec) - mono.tv_nsec);
}

EventLine::EventLine(std::string_view kind) : text_(kind) {}

EventLine& EventLine::add(std::string_view key, std::int64_t value) {
  text_ += ' ';
  text_ += key;
  text_ += '=';
  text_ += std::to_string(value);
  return *this;
}

EventLine& EventLine::add(std::string_view key, std::uint64_t value) {
  text_ += ' ';
  text_ += key;
  text_ += '=';
  text_ += std::to_string(value);
  return *this;
}

EventLine& EventLine::add(std::string_view key, std::string_view text) {
  text_ += ' ';
  text_ += key;
  text_ += '=';
  for (const char c : text) text_ += (c == ' ' || c == '\n' || c == '\r' || c == '\t') ? '_' : c;
  return *this;
}

EventLog::EventLog(const std::filesystem::path& path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "open " + path.string());
}

EventLog::~EventLog() {
  if (fd_ >= 0) ::close(fd_);
}

void EventLog::write(const EventLine& line) {
  const std::string text = line.text() + "\n";
  // O_APPEND and one write per line: lines of the threads of a process never interleave.
  ssize_t n;
  do {
    n = ::write(fd_, text.data(), text.size());
  } while (n < 0 && errno == EINTR);
}

std::int64_t Event::integer(std::string_view key, std::int64_t otherwise) const {
  const auto found = fields.find(key);
  if (found == fields.end()) return otherwise;
  std::int64_t value = 0;
  const auto& text = found->second;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  return result.ec == std::errc() ? value : otherwise;
}

std::uint64_t Event::unsigned_integer(std::string_view key, std::uint64_t otherwise) const {
  const auto found = fields.find(key);
  if (found == fields.end()) return otherwise;
  std::uint64_t value = 0;
  const auto& text = found->second;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  return result.ec == std::errc() ? value : otherwise;
}

std::string Event::text(std::string_view key) const {
  const auto found = fields.find(key);
  return found == fields.end() ? std::string() : found->second;
}

std::optional<Event> parse_event(std::string_view line) {
  Event event;
  std::size_t at = 0;
  auto next_word = [&]() -> std::string_view {
    while (at < line.size() && line[at] == ' ') ++at;
    const auto begin = at;
    while (at < line.size() && line[at] != ' ') ++at;
    return line.substr(begin, at - begin);
  };
  const auto kind = next_word();
  if (kind.empty()) return std::nullopt;
  event.kind = std::string(kind);
  for (auto word = next_word(); !word.empty(); word = next_word()) {
    const auto equals = word.find('=');
    if (equals == std::string_view::npos) return std::nullopt;
    event.fields.emplace(std::string(word.substr(0, equals)), std::string(word.substr(equals + 1)));
  }
  return event;
}

std::vector<Event> read_events(const std::filesystem::path& path) {
  std::vector<Event> events;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (auto event = parse_event(line)) events.push_back(std::move(*event));
  }
  return events;
}

std::string format_ms(double milliseconds) {
  char text[64];
  if (milliseconds >= 10'000 || milliseconds <= -10'000)
    std::snprintf(text, sizeof text, "%.1f s", milliseconds / 1000);
  else if (milliseconds >= 1000 || milliseconds <= -1000)
    std::snprintf(text, sizeof text, "%.2f s", milliseconds / 1000);
  else
    std::snprintf(text, sizeof text, "%.0f ms", milliseconds);
  return text;
}

std::string format_ns(std::int64_t nanoseconds) {
  return format_ms(static_cast<double>(nanoseconds) / 1e6);
}

Millis parse_duration(std::string_view text) {
  if (text.empty()) throw std::invalid_argument("empty duration");
  Millis total{0};
  std::size_t at = 0;
  bool any_unit = false;
  while (at < text.size()) {
    std::int64_t number = 0;
    const auto result = std::from_chars(text.data() + at, text.data() + text.size(), number);
    if (result.ec != std::errc() || number < 0)
      throw std::invalid_argument("bad duration '" + std::string(text) + "'");
    at = static_cast<std::size_t>(result.ptr - text.data());
    std::string_view unit = text.substr(at);
    if (unit.empty()) {
      if (any_unit) throw std::invalid_argument("bad duration '" + std::string(text) + "'");
      return Millis(number);  // bare milliseconds
    }
    any_unit = true;
    if (unit.starts_with("ms")) {
      total += Millis(number);
      at += 2;
    } else if (unit.starts_with("s")) {
      total += std::chrono::seconds(number);
      at += 1;
    } else if (unit.starts_with("m")) {
      total += std::chrono::minutes(number);
      at += 1;
    } else if (unit.starts_with("h")) {
      total += std::chrono::hours(number);
      at += 1;
    } else {
      throw std::invalid_argument("bad duration '" + std::string(text) + "'");
    }
  }
  return total;
}

}  // namespace distlock::reliability
