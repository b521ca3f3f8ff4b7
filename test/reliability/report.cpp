// SPDX-License-Identifier: Apache-2.0
#include "report.h"

#include "run_logs.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

namespace distlock::reliability {
namespace {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

std::int64_t ns(Millis d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

std::string yes_no(bool b) { return b ? "yes" : "no"; }

std::string optional_ns(const std::optional<std::int64_t>& value) {
  return value ? format_ns(*value) : std::string("-");
}

bool victim_fault(const std::string& fault) {
  return fault == "kill-holder" || fault == "stop-holder" || fault == "partition";
}

// Holders may overlap only where the service itself forgot the lock: a Redis without
// persistence that restarted, or a replica promoted without the last grants (replication
// not waited for). Overlaps are reported there, and fencing must still refuse every stale
// write.
bool overlaps_allowed(const RunFacts& facts) {
  return (facts.backend == "redis" && facts.fault == "restart-server") ||
         (facts.backend == "redis-sentinel-async" && facts.fault == "kill-leader");
}

}  // namespace

bool Report::ok() const {
  return std::all_of(checks.begin(), checks.end(), [](const Check& c) { return c.ok; });
}

Report analyze(const RunFacts& facts) {
  Report report;
  report.facts = facts;
  Figures& f = report.figures;
  const auto& records = facts.records;
  const Logs logs = load_logs(facts.log_directory);
  f.store = audit_store(facts.store);
  f.runtime_warnings = logs.runtime_warnings;

  std::vector<const Acquisition*> all;
  for (const auto& [key, a] : logs.acquisitions) {
    if (a.granted == 0) continue;  // a line without its grant: cannot happen, ignore
    all.push_back(&a);
  }
  std::sort(all.begin(), all.end(),
            [](const Acquisition* x, const Acquisition* y) { return x->granted < y->granted; });
  f.acquisitions = all.size();
  for (const Acquisition* a : all) {
    if (a->ended) ++f.rounds_completed;
    if (a->told > 0 || a->lost_callback > 0) ++f.holders_told;
    if (a->lost_callback > 0) ++f.lost_callbacks;
    if (a->ended && a->released == "lost") ++f.release_lost;
    if (a->asked > 0) f.longest_wait_ns = std::max(f.longest_wait_ns, a->granted - a->asked);
  }

  // Overlapping holders: two workers that both believed they held the lock at one instant.
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::int64_t until = all[i]->believed_until(records);
    for (std::size_t j = i + 1; j < all.size() && all[j]->granted < until; ++j) {
      if (all[j]->worker == all[i]->worker) continue;
      ++f.interval_overlaps;
      const std::int64_t overlap =
          std::min(until, all[j]->believed_until(records)) - all[j]->granted;
      f.longest_overlap_ns = std::max(f.longest_overlap_ns, overlap);
    }
  }

  for (const Event& w : logs.writes) {
    const std::string outcome = w.text("outcome");
    if (outcome == "refused") ++f.refused_locally;
    if (outcome == "undone" || outcome == "undo-rejected") ++f.undone;
  }
  for (const Event& e : logs.errors) {
    const std::string kind = e.text("kind");
    if (kind == "timeout")
      ++f.timeouts;
    else if (kind == "unavailable")
      ++f.unavailable;
    else
      ++f.crashes;
  }

  for (std::size_t index = 0; index < records.size(); ++index) {
    const FaultRecord& record = records[index];
    const std::int64_t next_start = index + 1 < records.size()
                                        ? records[index + 1].start_ns
                                        : std::numeric_limits<std::int64_t>::max();
    Figures::Injection injection;
    injection.record = record;
    if (!record.applied) {
      f.injections.push_back(injection);
      continue;
    }

    // Recovery: the first grant to someone other than the victim once the fault began.
    if (record.name != "clock-jump") {
      for (const Acquisition* a : all) {
        if (a->granted >= record.start_ns && a->worker != record.victim) {
          injection.recovery_ns = a->granted - record.start_ns;
          break;
        }
      }
    }

    // The victim's hold when it was hit, what it did afterwards, and the next holder.
    if (record.victim >= 0) {
      const Acquisition* victim = nullptr;
      for (const Acquisition* a : all)
        if (a->worker == record.victim && a->fence == record.victim_fence &&
            a->granted <= record.start_ns)
          victim = a;
      if (victim != nullptr) {
        injection.victim_held = !victim->ended || victim->end >= record.start_ns;
        injection.victim_told = victim->told > 0 || victim->lost_callback > 0;
        if (victim->lost_callback > 0)
          injection.on_lost_lag_ns = victim->lost_callback - victim->last_valid_until();
        for (const Event& w : logs.writes)
          if (w.integer("w") == victim->worker && w.unsigned_integer("n") == victim->n &&
              w.integer("post") != 0) {
            ++injection.post_fault_writes;
            if (w.text("outcome") == "accepted") ++injection.post_fault_accepted;
            // Anything but "refused" ran against the store: checked() did not stop it.
            if (w.text("outcome") != "refused") ++injection.post_fault_reached_store;
          }
        for (const Event& p : logs.probes)
          if (p.integer("w") == victim->worker && p.unsigned_integer("n") == victim->n) {
            ++injection.probes;
            if (p.text("outcome") == "rejected") ++injection.probes_rejected;
          }
        if (victim_fault(record.name)) {
          // Until when the victim's lease was valid as far as it knew, had it not released it.
          std::int64_t valid_until = victim->last_valid_until();
          if (victim->ended) valid_until = std::min(valid_until, victim->end);
          for (const Acquisition* a : all) {
            if (a->worker != record.victim && a->granted > victim->granted) {
              injection.validity_margin_ns = a->granted - valid_until;
              injection.validity_margin_sent_ns = a->sent - valid_until;
              break;
            }
          }
        }
      }
    }

    // A restart: who still held the lock when the server served again, and when each
    // stopped believing it did.
    if (record.name == "restart-server") {
      for (const Acquisition* a : all) {
        std::int64_t uninformed_until = a->last_valid_until();
        if (a->ended) uninformed_until = std::min(uninformed_until, a->end);
        if (a->granted < record.start_ns && uninformed_until > record.end_ns) {
          ++injection.spanning;
          if (a->told > 0 || a->lost_callback > 0) ++injection.spanning_told;
          const std::int64_t window =
              std::max<std::int64_t>(0, a->believed_until(records) - record.end_ns);
          injection.restart_window_ns = std::max(injection.restart_window_ns.value_or(0), window);
        }
      }
    }

    // The wall clock each worker saw, against the coordinator's real one, at its last grant
    // before the next injection once this one surely took effect.
    if (record.name == "clock-jump") {
      constexpr std::int64_t kJump = 2LL * 3600 * 1'000'000'000;
      const bool away = index % 2 == 0;
      for (int id = 0; id < facts.workers; ++id) {
        Figures::Injection::WallShift shift;
        shift.worker = id;
        if (away) {
          if (facts.threads || id == 0)
            shift.expected = kJump;  // one process: every thread
          else if (id == 1)
            shift.expected = -kJump;
        }
        for (const Acquisition* a : all)
          if (a->worker == id && a->granted > record.end_ns + 100'000'000 &&
              a->granted < next_start)
            shift.seen = a->wall - facts.wall_minus_mono_ns;
        injection.wall_shifts.push_back(shift);
      }
    }
    f.injections.push_back(injection);
  }

  // ----- the checks -----
  auto check = [&](std::string name, bool ok, std::string detail) {
    report.checks.push_back({std::move(name), ok, std::move(detail)});
  };
  // One check over every injection: ok when `ok` holds for each; the detail lists them.
  auto check_each = [&](std::string name, auto&& ok, auto&& describe) {
    bool all_ok = !f.injections.empty();
    std::string detail;
    for (const auto& injection : f.injections) {
      all_ok = all_ok && injection.record.applied && ok(injection);
      if (!detail.empty()) detail += "; ";
      detail += describe(injection);
    }
    check(std::move(name), all_ok, detail);
  };
  {
    bool exits_ok = !facts.exits.empty();
    std::string detail;
    for (const auto& e : facts.exits) {
      exits_ok = exits_ok && e.ok;
      if (!detail.empty()) detail += ", ";
      detail += "worker " + std::to_string(e.first_id) + ": " + e.status;
    }
    check(
        "workers ended as expected", exits_ok && f.crashes == 0,
        detail + (f.crashes ? ", " + std::to_string(f.crashes) + " worker crash(es) logged" : ""));
  }
  check("enough operations", f.store.writes_accepted >= facts.min_operations,
        std::to_string(f.store.writes_accepted) + " accepted increments (at least " +
            std::to_string(facts.min_operations) + ")");
  check("no lost update", f.store.lost_updates == 0,
        std::to_string(f.store.lost_updates) + " lost");
  check("no stale write accepted", f.store.stale_accepted == 0,
        std::to_string(f.store.stale_accepted) + " accepted with a fence below one already used");
  check("store consistent", f.store.consistent,
        f.store.consistent ? "final value " + std::to_string(f.store.final_value) +
                                 " = accepted increments - undos"
                           : f.store.inconsistency);
  if (!overlaps_allowed(facts)) {
    check("no overlapping holders", f.interval_overlaps == 0,
          std::to_string(f.interval_overlaps) + " overlapping pair(s), longest " +
              format_ns(f.longest_overlap_ns));
  }
  // Else reported, not asserted: the window this backend cannot close (docs/reliability.md).
  const std::string& fault = facts.fault;
  if (fault != "none") {
    check_each(
        "fault applied", [](const auto&) { return true; },
        [](const auto& i) {
          return i.record.detail.empty() ? std::string("not applied") : i.record.detail;
        });
  }
  if (fault == "none" || fault == "clock-jump") {
    check("no holder told of a loss", f.holders_told == 0,
          std::to_string(f.holders_told) + " told");
    check("no write refused", f.refused_locally == 0 && f.undone == 0,
          std::to_string(f.refused_locally) + " refused, " + std::to_string(f.undone) + " undone");
    check("no stale operation", f.store.reads_rejected == 0 && f.store.writes_rejected == 0,
          std::to_string(f.store.reads_rejected) + " reads and " +
              std::to_string(f.store.writes_rejected) + " writes rejected by fencing");
  }
  const std::int64_t expiry = ns(facts.expiry_bound) + ns(facts.slack);
  const bool has_victim = !records.empty() && records.front().victim >= 0;
  if (has_victim) {
    check_each(
        "victim held the lock when hit", [](const auto& i) { return i.victim_held; },
        [](const auto& i) {
          return "worker " + std::to_string(i.record.victim) + " fence " +
                 std::to_string(i.record.victim_fence) + (i.victim_held ? "" : " (not held)");
        });
  }
  if (victim_fault(fault)) {
    check_each(
        "recovered within the expiry bound (" + format_ns(expiry) + ")",
        [&](const auto& i) { return i.recovery_ns && *i.recovery_ns <= expiry; },
        [](const auto& i) { return optional_ns(i.recovery_ns); });
    check_each(
        "victim's validity ended before the next grant",
        [](const auto& i) { return i.validity_margin_ns && *i.validity_margin_ns >= 0; },
        [](const auto& i) {
          return "margin " + optional_ns(i.validity_margin_ns) + " (from the winning send " +
                 optional_ns(i.validity_margin_sent_ns) + ")";
        });
  }
  const bool lock_forgotten = facts.backend == "redis" && fault == "restart-server";
  if (fault == "stop-holder" || fault == "partition" || lock_forgotten) {
    check_each(
        "victim's writes after the fault all refused",
        [](const auto& i) { return i.post_fault_writes >= 1 && i.post_fault_accepted == 0; },
        [](const auto& i) {
          return std::to_string(i.post_fault_accepted) + " of " +
                 std::to_string(i.post_fault_writes) +
                 " accepted, stale probes rejected by fencing " +
                 std::to_string(i.probes_rejected) + " of " + std::to_string(i.probes);
        });
    check_each(
        "victim's writes after the fault stopped by checked()",
        [](const auto& i) { return i.post_fault_writes >= 1 && i.post_fault_reached_store == 0; },
        [](const auto& i) {
          return std::to_string(i.post_fault_reached_store) + " of " +
                 std::to_string(i.post_fault_writes) + " reached the store";
        });
    check_each(
        "victim told of its loss", [](const auto& i) { return i.victim_told; },
        [](const auto& i) { return yes_no(i.victim_told); });
  }
  if (fault == "partition") {
    // lease.h: on_lost runs "when ... the lease runs out before a renewal gets through": a
    // holder cut off from its server must hear of it when its validity ends, not when the
    // network comes back.
    check_each(
        "victim's on_lost ran when its validity ended (within " + format_ns(ns(facts.slack)) + ")",
        [&](const auto& i) { return i.on_lost_lag_ns && *i.on_lost_lag_ns <= ns(facts.slack); },
        [](const auto& i) {
          return i.on_lost_lag_ns ? format_ns(*i.on_lost_lag_ns) + " after valid_until"
                                  : std::string("never (before the victim released)");
        });
  }
  if (fault == "restart-server" || fault == "kill-leader") {
    check_each(
        "recovered", [](const auto& i) { return i.recovery_ns.has_value(); },
        [](const auto& i) { return optional_ns(i.recovery_ns); });
  }
  if (lock_forgotten) {
    // Every lock is gone: each holder must learn it at its next renewal.
    const std::int64_t bound = ns(facts.ttl) / 3 + ns(facts.slack);
    check_each(
        "every holder across the restart told",
        [](const auto& i) { return i.spanning >= 1 && i.spanning_told == i.spanning; },
        [](const auto& i) {
          return std::to_string(i.spanning_told) + " of " + std::to_string(i.spanning);
        });
    check_each(
        "holders stopped believing within a renewal interval (" + format_ns(bound) + ")",
        [&](const auto& i) { return i.restart_window_ns && *i.restart_window_ns <= bound; },
        [](const auto& i) { return optional_ns(i.restart_window_ns); });
  }
  if (fault == "clock-jump") {
    constexpr std::int64_t kTolerance = 60LL * 1'000'000'000;
    check_each(
        "workers saw their wall clock jump",
        [&](const auto& i) {
          // A worker granted nothing after the jump (its wait ran out while the others held
          // the lock) saw nothing to compare; every worker granted must see its own shift,
          // and some worker the jump.
          bool ok = true;
          bool jump_seen = false;
          for (const auto& shift : i.wall_shifts) {
            if (!shift.seen) continue;
            ok = ok && *shift.seen > shift.expected - kTolerance &&
                 *shift.seen < shift.expected + kTolerance;
            jump_seen = jump_seen || shift.expected != 0;
          }
          return ok && jump_seen;
        },
        [](const auto& i) {
          std::string text;
          for (const auto& shift : i.wall_shifts) {
            if (!text.empty()) text += ", ";
            text += "worker " + std::to_string(shift.worker) + " " +
                    (shift.seen ? std::to_string(*shift.seen / 1'000'000'000) + " s"
                                : std::string("no grant")) +
                    " (expected " + std::to_string(shift.expected / 1'000'000'000) + " s)";
          }
          return text;
        });
  }
  return report;
}

namespace {

// "1.00 s" for one value, "1.00 s .. 1.20 s (n=5)" for several, "-" for none.
std::string range_of(const std::vector<std::int64_t>& values) {
  if (values.empty()) return "-";
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  if (values.size() == 1) return format_ns(*low);
  return format_ns(*low) + " .. " + format_ns(*high) + " (n=" + std::to_string(values.size()) + ")";
}

template <class Get>
std::vector<std::int64_t> collect(const Figures& f, Get&& get) {
  std::vector<std::int64_t> values;
  for (const auto& injection : f.injections)
    if (const std::optional<std::int64_t> value = get(injection)) values.push_back(*value);
  return values;
}

}  // namespace

void print_report(std::ostream& out, const Report& report) {
  const RunFacts& facts = report.facts;
  const Figures& f = report.figures;
  out << "distlock checker: backend " << facts.backend << ", lock " << facts.kind << ", fault "
      << facts.fault << ", " << facts.workers
      << (facts.threads ? " worker threads" : " worker processes")
      << (facts.shared_client ? " sharing one client" : "")
      << (facts.async_acquire ? " acquiring asynchronously" : "") << " x "
      << format_ns(facts.ran_ns) << ", ttl " << format_ms(static_cast<double>(facts.ttl.count()))
      << "\n";
  for (const auto& injection : f.injections)
    out << "  fault:                       " << injection.record.detail << "\n";
  out << "  acquisitions:                " << f.acquisitions << " (" << f.rounds_completed
      << " completed)\n"
      << "  operations (increments):     " << f.store.writes_accepted << " accepted, final value "
      << f.store.final_value << "\n"
      << "  lost updates:                " << f.store.lost_updates << "\n"
      << "  overlapping holders:         " << f.interval_overlaps << " pair(s) (longest "
      << format_ns(f.longest_overlap_ns) << "); seen by the resource: " << f.store.interleaved
      << "\n"
      << "  stale ops rejected (fence):  " << f.store.reads_rejected << " reads, "
      << f.store.writes_rejected << " writes (" << f.store.probes << " deliberate probes, "
      << f.store.probes_accepted << " of them accepted)\n"
      << "  stale writes accepted:       " << f.store.stale_accepted << "\n"
      << "  holders told of a loss:      " << f.holders_told << " (on_lost " << f.lost_callbacks
      << ", release " << f.release_lost << ")\n"
      << "  writes refused by checked:   " << f.refused_locally << " refused, " << f.undone
      << " undone\n"
      << "  acquire timeouts/unavailable: " << f.timeouts << " / " << f.unavailable << "\n"
      << "  longest wait for the lock:   " << format_ns(f.longest_wait_ns) << "\n"
      << "  runtime warnings logged:     " << f.runtime_warnings << "\n";
  const auto recovery = collect(f, [](const auto& i) { return i.recovery_ns; });
  if (!recovery.empty()) out << "  recovery (fault -> grant):   " << range_of(recovery) << "\n";
  const auto margin = collect(f, [](const auto& i) { return i.validity_margin_ns; });
  if (!margin.empty())
    out << "  validity margin:             " << range_of(margin)
        << " (next grant - end of the victim's validity)\n";
  std::uint64_t writes = 0, accepted = 0, probes = 0, rejected = 0, told = 0, spanning = 0,
                spanning_told = 0;
  for (const auto& i : f.injections) {
    writes += i.post_fault_writes;
    accepted += i.post_fault_accepted;
    probes += i.probes;
    rejected += i.probes_rejected;
    told += i.victim_told ? 1 : 0;
    spanning += i.spanning;
    spanning_told += i.spanning_told;
  }
  const auto lag = collect(f, [](const auto& i) { return i.on_lost_lag_ns; });
  if (!lag.empty())
    out << "  victim's on_lost:            " << range_of(lag) << " after its validity ended\n";
  if (writes || probes)
    out << "  victim after the fault:      " << writes << " write(s), " << accepted << " accepted; "
        << probes << " probe(s), " << rejected << " rejected by fencing; told in " << told << " of "
        << f.injections.size() << " injection(s)\n";
  if (facts.fault == "restart-server") {
    out << "  holders across the restart:  " << spanning
        << " still holding when it served again, told " << spanning_told;
    if (facts.backend == "redis")
      out << "; believed they held it for "
          << range_of(collect(f, [](const auto& i) { return i.restart_window_ns; })) << " after";
    out << "\n";
  }
  out << "checks:\n";
  for (const Check& c : report.checks)
    out << "  [" << (c.ok ? "ok" : "FAILED") << "] " << c.name << ": " << c.detail << "\n";
  out << (report.ok() ? "RESULT: PASS" : "RESULT: FAIL") << "\n";
}

void append_markdown_row(const std::filesystem::path& path, const Report& report) {
  const bool fresh = !std::filesystem::exists(path);
  std::ofstream out(path, std::ios::app);
  const RunFacts& facts = report.facts;
  const Figures& f = report.figures;
  if (fresh) {
    out << "| backend | fault | workers x time | faults | ops | lost updates | overlaps: holders / "
           "seen by store "
           "| stale rejected | stale accepted | holders told | recovery | margin / window | result "
           "|\n"
        << "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  }
  std::string extra = "-";
  const auto margin = collect(f, [](const auto& i) { return i.validity_margin_ns; });
  const auto window = collect(f, [](const auto& i) { return i.restart_window_ns; });
  if (!margin.empty())
    extra = "margin " + range_of(margin);
  else if (!window.empty() && facts.backend == "redis")
    extra = "window " + range_of(window);
  out << "| " << facts.backend << (facts.kind == "exclusive" ? "" : " (" + facts.kind + ")")
      << " | " << facts.fault << " | " << facts.workers << (facts.threads ? " threads" : " procs")
      << " x " << format_ns(facts.ran_ns) << " | " << f.injections.size() << " | "
      << f.store.writes_accepted << " | " << f.store.lost_updates << " | " << f.interval_overlaps
      << " / " << f.store.interleaved << " | " << (f.store.reads_rejected + f.store.writes_rejected)
      << " | " << f.store.stale_accepted << " | " << f.holders_told << " | "
      << range_of(collect(f, [](const auto& i) { return i.recovery_ns; })) << " | " << extra
      << " | " << (report.ok() ? "pass" : "FAIL") << " |\n";
}

}  // namespace distlock::reliability
