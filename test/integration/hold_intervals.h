// SPDX-License-Identifier: Apache-2.0
// Hold intervals that multi-process tests record (rw_worker, CuratorContender: one line per
// hold, "<R|W|P> <start-ns> <end-ns> <who>") and what the tests check in them; and the holds
// such a worker reports when it ends.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "subprocess.h"

namespace distlock::testing {

// "done <n>" (Curator) or "done <n> unavailable <u> lost <l>" (rw_worker): n.
inline std::uint64_t holds_reported(const std::string& output) {
  const auto at = output.rfind("done ");
  if (at == std::string::npos) return 0;
  return std::stoull(output.substr(at + 5));
}

// Waits for a worker (distlock or Curator), expects it to succeed, and returns the holds it
// reports.
inline std::uint64_t finish_worker(Subprocess& worker, const std::string& what) {
  const std::string output = worker.read_all(std::chrono::seconds(150));
  const ExitStatus status = worker.wait(std::chrono::seconds(30));
  EXPECT_TRUE(status.success()) << what << " (pid " << worker.pid() << "): " << status.describe()
                                << " (2: a violation), output: " << output;
  return holds_reported(output);
}

// One hold, as rw_worker and CuratorContender record it.
struct HoldInterval {
  bool write = false;      // a write or exclusive hold ("W"); reads ("R") and permits ("P") share
  std::int64_t start = 0;  // steady_clock / System.nanoTime() nanoseconds
  std::int64_t end = 0;
  std::string who;
};

inline std::vector<HoldInterval> read_intervals(const std::string& path) {
  std::vector<HoldInterval> result;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string kind;
    HoldInterval interval;
    if (!(fields >> kind >> interval.start >> interval.end >> interval.who) ||
        (kind != "R" && kind != "W" && kind != "P")) {
      throw std::runtime_error("malformed interval line in " + path + ": \"" + line + "\"");
    }
    interval.write = kind == "W";
    result.push_back(interval);
  }
  return result;
}

// Pairs of holds that overlapped although one of them was a write (exclusive) hold, as text;
// empty when there are none.
inline std::string write_overlaps(std::vector<HoldInterval> holds, int max_reported = 5) {
  std::sort(holds.begin(), holds.end(),
            [](const HoldInterval& a, const HoldInterval& b) { return a.start < b.start; });
  std::string report;
  int reported = 0;
  for (std::size_t i = 0; i < holds.size(); ++i) {
    for (std::size_t j = i + 1; j < holds.size() && holds[j].start < holds[i].end; ++j) {
      if (!holds[i].write && !holds[j].write) continue;
      if (++reported > max_reported) continue;
      report += std::string(holds[i].write ? "W " : "R ") + holds[i].who + " [" +
                std::to_string(holds[i].start) + ", " + std::to_string(holds[i].end) + ") and " +
                (holds[j].write ? "W " : "R ") + holds[j].who + " [" +
                std::to_string(holds[j].start) + ", " + std::to_string(holds[j].end) + ")\n";
    }
  }
  if (reported > max_reported) {
    report += "... " + std::to_string(reported - max_reported) + " more\n";
  }
  return report;
}

// Pairs of read holds that overlapped: readers did share the lock.
inline int read_overlaps(std::vector<HoldInterval> holds) {
  std::sort(holds.begin(), holds.end(),
            [](const HoldInterval& a, const HoldInterval& b) { return a.start < b.start; });
  int count = 0;
  for (std::size_t i = 0; i < holds.size(); ++i) {
    for (std::size_t j = i + 1; j < holds.size() && holds[j].start < holds[i].end; ++j) {
      if (!holds[i].write && !holds[j].write) ++count;
    }
  }
  return count;
}

// The most holds that overlapped at one time (a hold ending as another starts does not count).
inline int most_at_once(const std::vector<HoldInterval>& holds) {
  std::vector<std::pair<std::int64_t, int>> events;  // (time, +1 start / -1 end); ends first
  events.reserve(holds.size() * 2);
  for (const auto& hold : holds) {
    events.emplace_back(hold.start, 1);
    events.emplace_back(hold.end, -1);
  }
  std::sort(events.begin(), events.end());
  int now = 0;
  int most = 0;
  for (const auto& event : events) {
    now += event.second;
    most = std::max(most, now);
  }
  return most;
}

}  // namespace distlock::testing
