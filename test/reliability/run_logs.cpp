// SPDX-License-Identifier: Apache-2.0
#include "run_logs.h"

#include <algorithm>

namespace distlock::reliability {

std::int64_t Acquisition::believed_until(const std::vector<FaultRecord>& records) const {
  std::int64_t until = last_valid_until();
  if (ended) until = std::min(until, end);
  if (told > 0) until = std::min(until, told);
  if (lost_callback > 0) until = std::min(until, lost_callback);
  // A worker killed while holding stopped believing anything when it died.
  if (!ended)
    for (const auto& record : records)
      if (record.name == "kill-holder" && worker == record.victim && record.start_ns > 0)
        until = std::min(until, record.start_ns);
  return until;
}

Logs load_logs(const std::filesystem::path& directory) {
  Logs logs;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind("runtime-", 0) == 0) {
      for (const auto& event : read_events(entry.path()))
        if (event.text("level") == "warning" || event.text("level") == "error")
          ++logs.runtime_warnings;
      continue;
    }
    if (file.rfind("worker-", 0) != 0) continue;
    for (auto& event : read_events(entry.path())) {
      const auto key =
          std::make_pair(static_cast<int>(event.integer("w")), event.unsigned_integer("n"));
      if (event.kind == "grant") {
        Acquisition& a = logs.acquisitions[key];
        a.worker = key.first;
        a.n = key.second;
        a.fence = event.unsigned_integer("f");
        a.sent = event.integer("sent");
        a.granted = event.integer("t");
        a.valid_until_grant = event.integer("vu");
        a.wall = event.integer("wall");
        a.asked = event.integer("asked");
      } else if (event.kind == "end") {
        Acquisition& a = logs.acquisitions[key];
        a.ended = true;
        a.end = event.integer("t");
        a.valid_until_end = event.integer("vu");
        a.released = event.text("released");
        a.told = event.integer("told");
        a.post_fault = event.integer("post") != 0;
      } else if (event.kind == "lost") {
        Acquisition& a = logs.acquisitions[key];
        if (a.lost_callback == 0) a.lost_callback = event.integer("t");
      } else if (event.kind == "write") {
        logs.writes.push_back(std::move(event));
      } else if (event.kind == "probe") {
        logs.probes.push_back(std::move(event));
      } else if (event.kind == "error") {
        logs.errors.push_back(std::move(event));
      }
    }
  }
  return logs;
}

}  // namespace distlock::reliability
