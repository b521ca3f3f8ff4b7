// SPDX-License-Identifier: Apache-2.0
// distlock: the operator's command for the locks a Redis, ZooKeeper or PostgreSQL server keeps
// (list, show, release, watch), for who leads an election (leader), for the servers themselves
// (server) and for a woven target's lock inventory (where). docs/operations.md describes each
// subcommand, its output and its exit codes.
#include <algorithm>
#include <functional>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include <distlock/error.h>

#include "command.h"

namespace distlock::cli {

const std::string& server_url(const GlobalOptions& options) {
  if (options.url.empty())
    throw UsageError("", "",
                     "no server given: pass --url URL or set DISTLOCK_URL (redis://host:port, "
                     "zookeeper://host:port, postgresql://user@host:port/database, ...)");
  return options.url;
}

std::unique_ptr<admin::LockAdmin> connect(const GlobalOptions& options) {
  return admin::LockAdmin::connect(server_url(options));
}

namespace {

// One subcommand: its part of the command line, and what runs it once parsed.
struct Subcommand {
  CLI::App* app;
  std::function<int()> run;
};

Subcommand add_list(CLI::App& parent, const GlobalOptions& options, ListOptions& list) {
  CLI::App* app = parent.add_subcommand(
      "list",
      "List the locks held or waited for: kind, name, holder (acquisition id, host, pid), "
      "acquired at, time left, fence, number of waiters. Exit 0 also when there are none.");
  app->add_option("PATTERN", list.pattern,
                  "Only locks whose names match this shell glob (order:*, *:alice:?)");
  return {app, [&] { return list_locks(options, list); }};
}

Subcommand add_show(CLI::App& parent, const GlobalOptions& options, ShowOptions& show) {
  CLI::App* app = parent.add_subcommand(
      "show",
      "Show one lock in full: every hold, and the waiters in the order they will be granted "
      "(ZooKeeper, a Redis or PostgreSQL fair lock). Exit 1 when nobody holds or waits for it.");
  app->add_option("NAME", show.name, "The lock name as list shows it (order:alice:42)")->required();
  return {app, [&] { return show_lock(options, show); }};
}

Subcommand add_release(CLI::App& parent, const GlobalOptions& options, ReleaseOptions& release) {
  CLI::App* app = parent.add_subcommand(
      "release",
      "Force-release a lock: remove its holds (waiters keep their places; the fence counter is "
      "never reset). The holder's lease turns invalid at its next renewal. Logs what was removed "
      "to stderr. Exit 1 when nothing was released, 2 without --force.");
  app->add_option("NAME", release.name, "The lock name as list shows it")->required();
  app->add_flag("--force", release.force,
                "Required: the holder may still be working under the lock");
  app->add_option("--id", release.acquisition_id,
                  "Release only this acquisition's hold, and only if it still holds the lock");
  return {app, [&] { return release_lock(options, release); }};
}

Subcommand add_watch(CLI::App& parent, const GlobalOptions& options, WatchOptions& watch) {
  CLI::App* app = parent.add_subcommand(
      "watch",
      "Watch the locks live: list them once a second and print what changed as events: grant, "
      "release, wait, leave (a waiter granted or gone). The first listing's holds and waiters "
      "show as grant and wait. Stops on Ctrl-C or SIGTERM (exit 0).");
  app->add_option("PATTERN", watch.pattern, "Only locks whose names match this shell glob");
  app->add_option("--count,--iterations", watch.count,
                  "Stop after this many listings (default: until stopped)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--interval-ms", watch.interval_ms,
                  "Milliseconds between listings (default 1000)")
      ->check(CLI::PositiveNumber);
  return {app, [&] { return watch_locks(options, watch); }};
}

Subcommand add_leader(CLI::App& parent, const GlobalOptions& options, LeaderOptions& leader) {
  CLI::App* app = parent.add_subcommand(
      "leader",
      "Who leads an election (Client::campaign): the leader's acquisition, host and pid, its "
      "term's epoch, since when, its time left, and how many campaigners wait. Exit 1 when "
      "nobody leads.");
  app->add_option("NAME", leader.election, "The election's name, as election() takes it")
      ->required();
  return {app, [&] { return show_leader(options, leader); }};
}

Subcommand add_where(CLI::App& parent, const GlobalOptions& options, WhereOptions& where) {
  CLI::App* app = parent.add_subcommand(
      "where",
      "Which functions of a woven target take locks of TYPE, from the lock inventory "
      "distlock_weave() writes (<build>/<target>.distlock-locks.json). Needs no server. Exit 1 "
      "when none does.");
  app->add_option("TYPE", where.type, "The lock type, as the annotation names it")->required();
  app->add_option("--manifest", where.manifest,
                  "The target's lock inventory, <target>.distlock-locks.json")
      ->required();
  return {app, [&] { return where_type_is_taken(options, where); }};
}

// Whether a word of the command line may hold a password: a URL's user information ends with
// '@', its query (?password=...) starts with '?', and a URL whose '@' was forgotten
// ("redis://user:S3cret") still has its "://".
bool may_hold_password(std::string_view word) {
  return word.find_first_of("@?") != std::string_view::npos ||
         word.find("://") != std::string_view::npos;
}

// `message` with every word of the command line that may hold a password, or value of an
// --option=value word that may, left out: CLI11 quotes the words it rejects, and a URL given
// where another argument belongs must not show its password.
std::string without_passwords(std::string message, const std::vector<std::string>& words) {
  static constexpr std::string_view kHidden = "<not shown: it may hold a password>";
  for (const auto& word : words) {
    const auto eq = word.starts_with("--") ? word.find('=') : std::string::npos;
    for (const auto& part : {word, eq == std::string::npos ? std::string() : word.substr(eq + 1)}) {
      if (part.empty() || !may_hold_password(part)) continue;
      for (auto at = message.find(part); at != std::string::npos;
           at = message.find(part, at + kHidden.size()))
        message.replace(at, part.size(), kHidden);
    }
  }
  return message;
}

Subcommand add_server(CLI::App& parent, const GlobalOptions& options) {
  CLI::App* app = parent.add_subcommand(
      "server",
      "What the servers behind the URL say of themselves (each master of a Redlock or a Cluster, "
      "the master a Sentinel names): the version, maxmemory and maxmemory-policy, and whether "
      "they may evict lock keys: safe, at risk (a maxmemory with any policy but noeviction), "
      "could not be checked (a user without +info), or does not apply (ZooKeeper, etcd, "
      "PostgreSQL, memory://).");
  return {app, [&] { return describe_servers(options); }};
}

int run(int argc, char** argv) {
  const std::vector<std::string> words(argv + std::min(argc, 1), argv + argc);
  CLI::App app{
      "Inspect and break the distributed locks distlock keeps on a Redis, ZooKeeper, etcd or "
      "PostgreSQL server.\nExit codes: 0 done, 1 nothing found or released, 2 usage error, "
      "3 server unreachable, 4 other failure.",
      "distlock"};
  // Before the subcommands are added: they take the parent's at that moment.
  app.failure_message([&words](const CLI::App* failed, const CLI::Error& error) {
    return without_passwords(CLI::FailureMessage::simple(failed, error), words);
  });
  GlobalOptions options;
  app.add_option("--url", options.url,
                 "The lock service, as the library takes it (redis://, redis+unix://, "
                 "redis+sentinel://, redis+cluster://, redis+redlock://, over TLS rediss://, "
                 "rediss+sentinel://, rediss+cluster://, rediss+redlock://, zookeeper://, "
                 "etcd://, over TLS etcds://, postgresql:// or postgres://)")
      ->envname("DISTLOCK_URL");
  app.add_flag("--json", options.json, "Write JSON for scripts instead of text");
  // The global options may also follow the subcommand.
  app.fallthrough();
  app.require_subcommand(1);

  ListOptions list;
  ShowOptions show;
  ReleaseOptions release;
  WatchOptions watch;
  LeaderOptions leader;
  WhereOptions where;
  const std::vector<Subcommand> subcommands = {add_list(app, options, list),
                                               add_show(app, options, show),
                                               add_release(app, options, release),
                                               add_watch(app, options, watch),
                                               add_leader(app, options, leader),
                                               add_where(app, options, where),
                                               add_server(app, options)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // A word that is no subcommand is left over, and CLI11 reports only the missing one.
    if (app.get_subcommands().empty() && !app.remaining().empty()) {
      const std::string word = app.remaining().front();
      if (may_hold_password(word)) {
        std::cerr << "distlock: unknown subcommand (not shown: it may be a URL holding a "
                     "password); use list, show, release, watch, leader, where or server, and give "
                     "the URL as "
                     "--url URL or in DISTLOCK_URL\n";
      } else {
        std::cerr
            << "distlock: unknown subcommand '" << word
            << "'; use list, show, release, watch, leader, where or server (distlock --help)\n";
      }
      return kUsage;
    }
    // --help is a "parse error" that succeeds.
    return app.exit(error) == 0 ? kOk : kUsage;
  }
  try {
    for (const auto& subcommand : subcommands)
      if (subcommand.app->parsed()) return subcommand.run();
  } catch (const ConfigError& error) {
    std::cerr << error.what() << '\n';
    return kUsage;
  } catch (const BackendUnavailable& error) {
    std::cerr << error.what() << '\n';
    return kUnreachable;
  } catch (const Error& error) {
    std::cerr << error.what() << '\n';
    return kFailed;
  } catch (const std::exception& error) {
    std::cerr << "distlock: " << error.what() << '\n';
    return kFailed;
  }
  return kUsage;
}

}  // namespace
}  // namespace distlock::cli

int main(int argc, char** argv) {
  try {
    return distlock::cli::run(argc, argv);
  } catch (...) {
    // run() reports what the subcommands throw; what escapes it (a CLI11 construction error,
    // std::bad_alloc) still ends with a documented code rather than std::terminate.
    return distlock::cli::kFailed;
  }
}
