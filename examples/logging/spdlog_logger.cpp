// SPDX-License-Identifier: Apache-2.0
// distlock's log messages through spdlog: one adapter, installed once at start-up.
//
//   spdlog_logger [URL]     default memory://spdlog-example
//
// It then runs into something the runtime can only log: a lease that ran out unrenewed and was
// taken over, released on scope exit. spdlog prints the error.
#include <chrono>
#include <memory>
#include <string_view>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <distlock/distlock.h>

namespace {

spdlog::level::level_enum spdlog_level(distlock::LogLevel level) {
  switch (level) {
    case distlock::LogLevel::debug:
      return spdlog::level::debug;
    case distlock::LogLevel::info:
      return spdlog::level::info;
    case distlock::LogLevel::warning:
      return spdlog::level::warn;
    case distlock::LogLevel::error:
      return spdlog::level::err;
  }
  return spdlog::level::err;
}

// The adapter: what spdlog's level filter drops costs one comparison.
void log_through(std::shared_ptr<spdlog::logger> logger) {
  distlock::set_logger(
      [logger = std::move(logger)](distlock::LogLevel level, std::string_view message) {
        logger->log(spdlog_level(level), "{}", message);
      });
}

}  // namespace

int main(int argc, char** argv) {
  using namespace std::chrono_literals;
  auto logger = spdlog::stdout_logger_mt("locks");
  logger->set_pattern("[%l] %n: %v");
  logger->set_level(spdlog::level::info);
  log_through(logger);

  const char* url = argc > 1 ? argv[1] : "memory://spdlog-example";
  auto client = distlock::Client::connect(url);
  auto other = distlock::Client::connect(url);
  {
    distlock::Lease short_lease =
        client->acquire(distlock::spec("report", 100ms, distlock::renew(false)), "daily");
    // Granted once the unrenewed lease ran out.
    distlock::Lease next =
        other->acquire(distlock::spec("report", 30s, distlock::wait(10s)), "daily");
  }  // short_lease's release finds the lock gone, and logs it
  distlock::set_logger({});
  return 0;
}
