// SPDX-License-Identifier: Apache-2.0
// The workers' event logs of one run, read back: each acquisition from its grant to its end
// (or loss, or the worker's death), the writes, probes and errors. The report checks them;
// the timeline draws them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "events.h"
#include "faults.h"

namespace distlock::reliability {

struct Acquisition {
  int worker = 0;
  std::uint64_t n = 0;
  std::uint64_t fence = 0;
  std::int64_t sent = 0;
  std::int64_t granted = 0;
  std::int64_t valid_until_grant = 0;
  std::int64_t wall = 0;
  std::int64_t asked = 0;
  bool ended = false;
  std::int64_t end = 0;
  std::int64_t valid_until_end = 0;
  std::string released;
  std::int64_t told = 0;
  std::int64_t lost_callback = 0;
  bool post_fault = false;

  std::int64_t last_valid_until() const { return ended ? valid_until_end : valid_until_grant; }
  // Until when the holder believed it held the lock.
  std::int64_t believed_until(const std::vector<FaultRecord>& records) const;
};

struct Logs {
  std::map<std::pair<int, std::uint64_t>, Acquisition> acquisitions;
  std::vector<Event> writes;
  std::vector<Event> probes;
  std::vector<Event> errors;
  std::uint64_t runtime_warnings = 0;
};

// Every worker-* and runtime-* log in `directory`.
Logs load_logs(const std::filesystem::path& directory);

}  // namespace distlock::reliability
