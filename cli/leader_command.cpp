// SPDX-License-Identifier: Apache-2.0
// distlock leader NAME: who leads an election (distlock/election.h), read off its lock's hold.
#include <iostream>
#include <string>

#include <distlock/election.h>
#include <distlock/key.h>

#include "command.h"
#include "lock_json.h"
#include "lock_text.h"

namespace distlock::cli {

int show_leader(const GlobalOptions& options, const LeaderOptions& leader_options) {
  const auto admin = connect(options);
  const std::string& election = leader_options.election;
  if (election.empty()) throw UsageError("", admin->server(), "the election name is empty");
  const std::string lock = std::string(kElectionLockType) + ":" + escape_name_part(election);
  const auto state = admin->show(lock);
  const bool led = state && !state->holds.empty();
  if (options.json) std::cout << leader_document(admin->server(), election, state) << '\n';
  if (!led) {
    std::cerr << Error(lock, admin->server(), "nobody leads this election").what() << '\n';
    return kNothingFound;
  }
  if (!options.json) write_leader(std::cout, election, *state, admin->server());
  return kOk;
}

}  // namespace distlock::cli
