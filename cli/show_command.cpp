// distlock show NAME: one lock in full, its waiters in order.
#include <iostream>

#include "command.h"
#include "lock_json.h"
#include "lock_text.h"

namespace distlock::cli {

Subcommand add_show_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "show",
      "Show one lock in full: every hold, and the waiters in the order they will be granted "
      "(ZooKeeper, a Redis fair lock). Exit 1 when nobody holds or waits for it.");
  auto name = std::make_shared<std::string>();
  app->add_option("NAME", *name, "The lock name as list shows it (order:alice:42)")->required();
  return {
      app, [name](const GlobalOptions& options) {
        const auto admin = connect(options);
        const auto lock = admin->show(*name);
        if (!lock) {
          std::cerr << Error(*name, admin->server(), "nobody holds or waits for this lock").what()
                    << '\n';
          if (options.json)
            std::cout << nlohmann::json{{"server", admin->server()}, {"lock", nullptr}}.dump(2)
                      << '\n';
          return kNothingFound;
        }
        if (options.json)
          std::cout << nlohmann::json{{"server", admin->server()}, {"lock", to_json(*lock)}}.dump(2)
                    << '\n';
        else
          write_lock_detail(std::cout, *lock, admin->server());
        return kOk;
      }};
}

}  // namespace distlock::cli
