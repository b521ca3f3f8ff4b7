// SPDX-License-Identifier: Apache-2.0
// Which masters of a Redlock granted each acquisition held through it: the round's grants, and
// those that came after the round was won. A round wins on a majority and goes on at once, so a
// master whose question was still under way, or whom another client's round reached first, may
// never hold the lease: its "not held" at the release says the lock is free there, not that the
// hold was lost.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace distlock::detail::redis {

class GrantingMasters {
 public:
  // The acquisition won with `granted` (one flag per master).
  void record(const std::string& acquisition_id, std::vector<bool> granted) {
    const std::lock_guard lock(mutex_);
    by_acquisition_[acquisition_id] = std::move(granted);
  }
  // Master `m` granted the acquisition after its round: kept while the acquisition is held.
  void add(const std::string& acquisition_id, std::size_t m) {
    const std::lock_guard lock(mutex_);
    const auto found = by_acquisition_.find(acquisition_id);
    if (found != by_acquisition_.end()) found->second[m] = true;
  }
  // What is known of the acquisition, forgotten now that it is being released; empty when
  // nothing is (an acquisition released once already): take every master for one that granted.
  std::vector<bool> take(const std::string& acquisition_id) {
    const std::lock_guard lock(mutex_);
    const auto found = by_acquisition_.find(acquisition_id);
    if (found == by_acquisition_.end()) return {};
    std::vector<bool> granted = std::move(found->second);
    by_acquisition_.erase(found);
    return granted;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::vector<bool>> by_acquisition_;
};

}  // namespace distlock::detail::redis
