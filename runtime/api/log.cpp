// SPDX-License-Identifier: Apache-2.0
#include <distlock/log.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

namespace distlock {
namespace {

void log_to_stderr(LogLevel level, std::string_view message) {
  if (level < LogLevel::warning) return;
  const char* label = level == LogLevel::warning ? "warning" : "error";
  std::fprintf(stderr, "distlock %s: %.*s\n", label, static_cast<int>(message.size()),
               message.data());
}

struct LoggerState {
  std::mutex mutex;
  // Shared so a message being logged keeps its logger alive while set_logger replaces it.
  std::shared_ptr<const Logger> logger = std::make_shared<const Logger>(log_to_stderr);
};

// Never destroyed: clients with static storage (the default client) are destroyed at exit,
// in an order nothing controls, and log while they go.
LoggerState& logger_state() {
  static LoggerState* const state = new LoggerState;
  return *state;
}

}  // namespace

void set_logger(Logger logger) {
  auto replacement = std::make_shared<const Logger>(std::move(logger));
  LoggerState& state = logger_state();
  std::lock_guard lock(state.mutex);
  state.logger = std::move(replacement);
}

namespace detail {

void log(LogLevel level, std::string_view message) {
  LoggerState& state = logger_state();
  std::shared_ptr<const Logger> logger;
  {
    std::lock_guard lock(state.mutex);
    logger = state.logger;
  }
  if (*logger) (*logger)(level, message);
}

}  // namespace detail
}  // namespace distlock
