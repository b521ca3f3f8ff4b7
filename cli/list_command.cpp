// SPDX-License-Identifier: Apache-2.0
// distlock list [PATTERN]: every lock held or waited for, a line per hold.
#include <iostream>

#include "command.h"
#include "lock_json.h"
#include "lock_text.h"

namespace distlock::cli {

int list_locks(const GlobalOptions& options, const ListOptions& list_options) {
  const auto admin = connect(options);
  const auto locks = admin->list(list_options.pattern);
  if (options.json) {
    std::cout << locks_document(admin->server(), locks) << '\n';
  } else {
    write_lock_table(std::cout, locks);
  }
  return kOk;
}

}  // namespace distlock::cli
