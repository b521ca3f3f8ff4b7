// distlock: the operator's command for the locks a Redis or ZooKeeper server keeps (list,
// show, release, watch) and for a woven target's lock inventory (where). docs/operations.md
// describes each subcommand, its output and its exit codes.
#include <iostream>
#include <vector>

#include <CLI/CLI.hpp>

#include <distlock/error.h>

#include "command.h"

namespace distlock::cli {

std::unique_ptr<admin::LockAdmin> connect(const GlobalOptions& options) {
  if (options.url.empty())
    throw UsageError("", "",
                     "no server given: pass --url URL or set DISTLOCK_URL (redis://host:port, "
                     "zookeeper://host:port, ...)");
  return admin::LockAdmin::connect(options.url);
}

namespace {

int run(int argc, char** argv) {
  CLI::App app{
      "Inspect and break the distributed locks distlock keeps on a Redis or ZooKeeper "
      "server.\nExit codes: 0 done, 1 nothing found or released, 2 usage error, "
      "3 server unreachable, 4 other failure.",
      "distlock"};
  GlobalOptions options;
  app.add_option("--url", options.url,
                 "The lock service, as the library takes it (redis://, redis+unix://, "
                 "redis+sentinel://, redis+redlock://, zookeeper://)")
      ->envname("DISTLOCK_URL");
  app.add_flag("--json", options.json, "Write JSON for scripts instead of text");
  // The global options may also follow the subcommand.
  app.fallthrough();
  app.require_subcommand(1);

  const std::vector<Subcommand> subcommands = {add_list_command(app), add_show_command(app),
                                               add_release_command(app), add_watch_command(app),
                                               add_where_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // A word that is no subcommand is left over, and CLI11 reports only the missing one.
    if (app.get_subcommands().empty() && !app.remaining().empty()) {
      std::cerr << "distlock: unknown subcommand '" << app.remaining().front()
                << "'; use list, show, release, watch or where (distlock --help)\n";
      return kUsage;
    }
    // --help is a "parse error" that succeeds.
    return app.exit(error) == 0 ? kOk : kUsage;
  }
  try {
    for (const auto& subcommand : subcommands)
      if (subcommand.app->parsed()) return subcommand.run(options);
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
