// SPDX-License-Identifier: Apache-2.0
// Where the runtime reports what it cannot throw: release failures in destructors, renewal
// errors, lost leases. The default logger writes warnings and errors to stderr.
#pragma once

#include <functional>
#include <string_view>

namespace distlock {

// How much a message matters.
enum class LogLevel { debug, info, warning, error };

// Where the runtime's messages go: set_logger() takes one.
using Logger = std::function<void(LogLevel, std::string_view message)>;

// Replaces the logger; an empty function silences the runtime. Thread-safe. When it returns,
// no call of the replaced logger is running on another thread, so what that logger captured
// may be destroyed (a logger that calls set_logger does not wait for its own call).
void set_logger(Logger logger);

namespace detail {
void log(LogLevel level, std::string_view message);
}

}  // namespace distlock
