// What the subcommands of the distlock command share: the global options, the exit codes, and
// how a subcommand is added to the command line and run.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include <distlock/admin.h>
#include <distlock/error.h>

namespace distlock::cli {

// The exit codes, as docs/operations.md lists them.
enum ExitCode : int {
  kOk = 0,
  kNothingFound = 1,  // no such lock, nothing released, no function of that type
  kUsage = 2,         // bad command line, bad URL, release without --force, unreadable manifest
  kUnreachable = 3,   // the server could not be reached or failed
  kFailed = 4,        // anything else
};

// A command line that names what cannot be done as given (exit kUsage), beyond what the parser
// checks.
class UsageError : public ConfigError {
  using ConfigError::ConfigError;
};

struct GlobalOptions {
  std::string url;  // --url, or DISTLOCK_URL
  bool json = false;
};

// One subcommand: its part of the command line, and what runs when it was given.
struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int(const GlobalOptions&)> run;
};

// Each adds its subcommand to `parent` (and its options, whose values live in the returned
// function).
Subcommand add_list_command(CLI::App& parent);
Subcommand add_show_command(CLI::App& parent);
Subcommand add_release_command(CLI::App& parent);
Subcommand add_watch_command(CLI::App& parent);
Subcommand add_where_command(CLI::App& parent);

// Connects to the server the options name. Throws UsageError when no URL was given,
// ConfigError for a bad one, BackendUnavailable when the server cannot be reached.
std::unique_ptr<admin::LockAdmin> connect(const GlobalOptions& options);

}  // namespace distlock::cli
