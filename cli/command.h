// SPDX-License-Identifier: Apache-2.0
// The subcommands of the distlock command: each one's options and what runs it, the global
// options and the exit codes. The command line itself is main.cpp's, the one file that
// parses it (CLI11 is a large header).
#pragma once

#include <memory>
#include <string>

#include <distlock/admin.h>
#include <distlock/error.h>

namespace distlock::cli {

// The exit codes, as docs/operations.md lists them.
enum ExitCode : int {
  kOk = 0,
  kNothingFound = 1,  // no such lock, nothing released, no function of that type, no leader
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

struct ListOptions {
  std::string pattern;  // a shell glob; empty: every lock
};

struct ShowOptions {
  std::string name;
};

struct ReleaseOptions {
  std::string name;
  bool force = false;
  std::string acquisition_id;  // empty: every hold
};

struct WatchOptions {
  std::string pattern;
  int count = 0;  // listings to take; 0: until stopped
  int interval_ms = 1000;
};

struct LeaderOptions {
  std::string election;  // the election's name, as election() takes it
};

struct WhereOptions {
  std::string type;
  std::string manifest;
};

// Each runs its subcommand and returns its exit code; they throw what connect() throws.
int list_locks(const GlobalOptions& options, const ListOptions& list_options);
int show_lock(const GlobalOptions& options, const ShowOptions& show_options);
int release_lock(const GlobalOptions& options, const ReleaseOptions& release_options);
int watch_locks(const GlobalOptions& options, const WatchOptions& watch_options);
int show_leader(const GlobalOptions& options, const LeaderOptions& leader_options);
int where_type_is_taken(const GlobalOptions& options, const WhereOptions& where_options);
int describe_servers(const GlobalOptions& options);

// The URL the options give. Throws UsageError when none was given.
const std::string& server_url(const GlobalOptions& options);

// Connects to the server the options name. Throws UsageError when no URL was given,
// ConfigError for a bad one, BackendUnavailable when the server cannot be reached.
std::unique_ptr<admin::LockAdmin> connect(const GlobalOptions& options);

}  // namespace distlock::cli
