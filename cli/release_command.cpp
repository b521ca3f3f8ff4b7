// SPDX-License-Identifier: Apache-2.0
// distlock release NAME --force [--id ACQUISITION_ID]: takes a stuck lock from its holder.
#include <iostream>
#include <optional>

#include "command.h"
#include "lock_json.h"
#include "lock_text.h"

namespace distlock::cli {

int release_lock(const GlobalOptions& options, const ReleaseOptions& release_options) {
  const auto admin = connect(options);
  const std::string& name = release_options.name;
  if (!release_options.force) {
    // Refused before anything is read or deleted: the holder may still be working.
    throw UsageError(name, admin->server(),
                     "not released: a force-release takes the lock from a holder that may still "
                     "be working under it; give --force (and --id ACQUISITION_ID to release only "
                     "that acquisition's hold)");
  }
  std::optional<std::string> acquisition_id;
  if (!release_options.acquisition_id.empty()) acquisition_id = release_options.acquisition_id;
  const auto released = admin->force_release(name, acquisition_id);
  for (const auto& hold : released) std::cerr << released_text(hold, admin->server()) << '\n';
  if (released.empty())
    std::cerr << Error(name, admin->server(),
                       acquisition_id ? "nothing released: acquisition '" + *acquisition_id +
                                            "' does not hold this lock"
                                      : std::string("nothing released: nobody holds this lock"))
                     .what()
              << '\n';
  if (options.json) std::cout << released_document(admin->server(), name, released) << '\n';
  return released.empty() ? kNothingFound : kOk;
}

}  // namespace distlock::cli
