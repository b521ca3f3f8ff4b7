#include <distlock/log.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

namespace distlock {
namespace {

std::mutex logger_mutex;

void log_to_stderr(LogLevel level, std::string_view message) {
  if (level < LogLevel::warning) return;
  const char* label = level == LogLevel::warning ? "warning" : "error";
  std::fprintf(stderr, "distlock %s: %.*s\n", label, static_cast<int>(message.size()),
               message.data());
}

// Shared so a message being logged keeps its logger alive while set_logger replaces it.
std::shared_ptr<const Logger>& current_logger() {
  static std::shared_ptr<const Logger> logger = std::make_shared<const Logger>(log_to_stderr);
  return logger;
}

}  // namespace

void set_logger(Logger logger) {
  auto replacement = std::make_shared<const Logger>(std::move(logger));
  std::lock_guard lock(logger_mutex);
  current_logger() = std::move(replacement);
}

namespace detail {

void log(LogLevel level, std::string_view message) {
  std::shared_ptr<const Logger> logger;
  {
    std::lock_guard lock(logger_mutex);
    logger = current_logger();
  }
  if (*logger) (*logger)(level, message);
}

}  // namespace detail
}  // namespace distlock
