// distlock list [PATTERN]: every lock held or waited for, a line per hold.
#include <iostream>

#include "command.h"
#include "lock_json.h"
#include "lock_text.h"

namespace distlock::cli {

Subcommand add_list_command(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "list",
      "List the locks held or waited for: kind, name, holder (acquisition id, host, pid), "
      "acquired at, time left, fence, number of waiters. Exit 0 also when there are none.");
  auto pattern = std::make_shared<std::string>();
  app->add_option("PATTERN", *pattern,
                  "Only locks whose names match this shell glob (order:*, *:alice:?)");
  return {app, [pattern](const GlobalOptions& options) {
            const auto admin = connect(options);
            const auto locks = admin->list(*pattern);
            if (options.json) {
              nlohmann::json array = nlohmann::json::array();
              for (const auto& lock : locks) array.push_back(to_json(lock));
              std::cout << nlohmann::json{{"server", admin->server()}, {"locks", array}}.dump(2)
                        << '\n';
            } else {
              write_lock_table(std::cout, locks);
            }
            return kOk;
          }};
}

}  // namespace distlock::cli
