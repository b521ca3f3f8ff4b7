// The runtime's log lines (set_logger), kept from `lowest` up while the object lives.
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <distlock/log.h>

namespace distlock::testing {

class CapturedLog {
 public:
  explicit CapturedLog(LogLevel lowest = LogLevel::debug) {
    set_logger([this, lowest](LogLevel level, std::string_view message) {
      if (level < lowest) return;
      std::lock_guard lock(mutex_);
      lines_.emplace_back(message);
    });
  }
  ~CapturedLog() { set_logger({}); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  std::vector<std::string> lines() const {
    std::lock_guard lock(mutex_);
    return lines_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

}  // namespace distlock::testing
