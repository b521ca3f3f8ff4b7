// SPDX-License-Identifier: Apache-2.0
// The runtime's log lines (set_logger), kept from `lowest` up while the object lives.
#pragma once

#include <algorithm>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <distlock/log.h>

namespace distlock::testing {

class CapturedLog {
 public:
  explicit CapturedLog(LogLevel lowest = LogLevel::debug) {
    set_logger([this, lowest](LogLevel level, std::string_view message) {
      if (level < lowest) return;
      std::lock_guard lock(mutex_);
      lines_.emplace_back(level, message);
    });
  }
  ~CapturedLog() { set_logger({}); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  std::vector<std::string> lines() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> messages;
    for (const auto& line : lines_) messages.push_back(line.second);
    return messages;
  }

  // The lines logged at exactly `level`.
  std::vector<std::string> lines_at(LogLevel level) const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> messages;
    for (const auto& line : lines_)
      if (line.first == level) messages.push_back(line.second);
    return messages;
  }

  // Whether a warning says that an outage is being ridden through (core/ride_through.h).
  bool told_of_riding() const {
    const auto warnings = lines_at(LogLevel::warning);
    return std::any_of(warnings.begin(), warnings.end(), [](const std::string& line) {
      return line.find("riding it through") != std::string::npos;
    });
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::pair<LogLevel, std::string>> lines_;
};

}  // namespace distlock::testing
