// SPDX-License-Identifier: Apache-2.0
#include <distlock/log.h>

#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "util/secret_filter.h"

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
  // Shared so a message being logged keeps its logger alive while set_logger replaces it;
  // copied and dropped only under `mutex`, so use_count() tells set_logger how many calls of
  // a replaced logger still run.
  std::shared_ptr<const Logger> logger = std::make_shared<const Logger>(log_to_stderr);
  std::condition_variable call_ended;
};

// How many logger calls this thread is inside: a logger that replaces itself (or logs) must
// not wait for its own call to end.
thread_local int logger_calls_on_this_thread = 0;

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
  std::unique_lock lock(state.mutex);
  std::shared_ptr<const Logger> replaced = std::exchange(state.logger, std::move(replacement));
  // What the replaced logger captured may be destroyed once this returns (a test's captured
  // lines, a service's log sink), so its calls on other threads must have ended.
  if (logger_calls_on_this_thread == 0)
    state.call_ended.wait(lock, [&] { return replaced.use_count() == 1; });
  // Destroyed after the unlock: what it captured may log as it goes.
  lock.unlock();
}

namespace detail {

void log(LogLevel level, std::string_view message) {
  LoggerState& state = logger_state();
  std::shared_ptr<const Logger> logger;
  {
    std::lock_guard lock(state.mutex);
    logger = state.logger;
  }
  if (*logger) {
    ++logger_calls_on_this_thread;
    try {
      (*logger)(level, SecretFilter::applied(message));
    } catch (...) {
      // A logger that throws loses its message; the runtime logs from destructors and threads
      // that must not end for it.
    }
    --logger_calls_on_this_thread;
  }
  {
    std::lock_guard lock(state.mutex);
    // The last copy is destroyed after the unlock: what it captured may log as it goes.
    if (logger.use_count() > 1) logger.reset();
  }
  state.call_ended.notify_all();
}

}  // namespace detail
}  // namespace distlock
