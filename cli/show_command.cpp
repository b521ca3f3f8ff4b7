// SPDX-License-Identifier: Apache-2.0
// distlock show NAME: one lock in full, its waiters in order.
#include <iostream>

#include "command.h"
#include "lock_json.h"
#include "lock_text.h"

namespace distlock::cli {

int show_lock(const GlobalOptions& options, const ShowOptions& show_options) {
  const auto admin = connect(options);
  const std::string& name = show_options.name;
  const auto lock = admin->show(name);
  if (!lock) {
    std::cerr << Error(name, admin->server(), "nobody holds or waits for this lock").what() << '\n';
    if (options.json) std::cout << lock_document(admin->server(), lock) << '\n';
    return kNothingFound;
  }
  if (options.json)
    std::cout << lock_document(admin->server(), lock) << '\n';
  else
    write_lock_detail(std::cout, *lock, admin->server());
  return kOk;
}

}  // namespace distlock::cli
