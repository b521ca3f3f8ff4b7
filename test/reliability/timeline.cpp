// SPDX-License-Identifier: Apache-2.0
#include "timeline.h"

#include <fstream>
#include <stdexcept>

#include "run_logs.h"

namespace distlock::reliability {

void write_timeline(const std::filesystem::path& path, const Report& report) {
  const RunFacts& facts = report.facts;
  const auto seconds = [&](std::int64_t ns) {
    return static_cast<double>(ns - facts.started_ns) / 1e9;
  };
  std::ofstream out(path);
  out << "# " << facts.backend << ' ' << facts.kind << ' ' << facts.fault << ", " << facts.workers
      << " workers, ttl " << facts.ttl.count() << " ms\n";
  const Logs logs = load_logs(facts.log_directory);
  for (const auto& [key, acquisition] : logs.acquisitions) {
    if (acquisition.granted == 0) continue;  // killed between its grant and the grant's line
    out << "hold\t" << acquisition.worker << '\t' << seconds(acquisition.granted) << '\t'
        << seconds(acquisition.believed_until(facts.records)) << '\t' << acquisition.fence << '\n';
  }
  for (const auto& injection : report.figures.injections) {
    const FaultRecord& record = injection.record;
    if (!record.applied) continue;
    out << "fault\t" << record.name << '\t' << seconds(record.start_ns) << '\t'
        << seconds(record.end_ns > 0 ? record.end_ns : record.start_ns) << '\t' << record.victim
        << '\n';
    for (const auto& [key, acquisition] : logs.acquisitions)
      if (record.victim >= 0 && acquisition.worker == record.victim &&
          acquisition.fence == record.victim_fence)
        out << "valid\t" << record.victim << '\t'
            << seconds(acquisition.believed_until(facts.records)) << '\t'
            << seconds(acquisition.last_valid_until()) << '\n';
    if (injection.recovery_ns)
      out << "recovery\t" << seconds(record.start_ns + *injection.recovery_ns) << '\n';
  }
  if (!out) throw std::runtime_error("cannot write the timeline " + path.string());
}

}  // namespace distlock::reliability
