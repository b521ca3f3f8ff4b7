// SPDX-License-Identifier: Apache-2.0
#include <distlock/prometheus.h>

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string_view>

#include "metrics/exposition.h"

namespace distlock {
// Named, where the rest of this file's own names are anonymous: PrometheusMetrics::Counts, a
// member of a public class, holds them.
namespace detail::prometheus {

struct Histogram {
  // Each bucket's own count, not cumulative.
  std::array<std::uint64_t, PrometheusMetrics::kHistogramBuckets.size()> in_bucket{};
  std::uint64_t count = 0;
  double sum = 0;

  void observe(Millis duration) {
    const double seconds = std::chrono::duration<double>(duration).count();
    for (std::size_t i = 0; i < PrometheusMetrics::kHistogramBuckets.size(); ++i) {
      if (seconds <= PrometheusMetrics::kHistogramBuckets[i]) {
        ++in_bucket[i];
        break;
      }
    }
    ++count;
    sum += seconds;
  }
};

struct TypeCounts {
  std::uint64_t acquisitions = 0;
  std::uint64_t contended = 0;
  std::uint64_t timeouts = 0;
  std::uint64_t releases = 0;
  std::uint64_t renewals = 0;
  std::uint64_t renewal_failures = 0;
  std::uint64_t lost = 0;
  std::uint64_t release_failures = 0;
  Histogram wait;
  Histogram hold;
};

}  // namespace detail::prometheus

namespace {

using detail::prometheus::append_header;
using detail::prometheus::append_sample;
using detail::prometheus::format_number;
using detail::prometheus::Histogram;
using detail::prometheus::TypeCounts;

constexpr auto& kBuckets = PrometheusMetrics::kHistogramBuckets;

struct CounterFamily {
  std::string_view name;
  std::string_view help;
  std::uint64_t TypeCounts::*count;
};

constexpr CounterFamily kCounters[] = {
    {"distlock_acquisitions_total", "Leases granted.", &TypeCounts::acquisitions},
    {"distlock_contended_total", "Acquisitions that found the lock taken and waited.",
     &TypeCounts::contended},
    {"distlock_timeouts_total", "Acquisitions that gave up (LockTimeout, empty try_acquire).",
     &TypeCounts::timeouts},
    {"distlock_releases_total", "Leases released.", &TypeCounts::releases},
    {"distlock_renewals_total", "Renewals that extended a lease.", &TypeCounts::renewals},
    {"distlock_renewal_failures_total", "Renewals that failed for a network error.",
     &TypeCounts::renewal_failures},
    {"distlock_lost_total", "Leases found no longer held by a renewal or the release.",
     &TypeCounts::lost},
    {"distlock_release_failures_total",
     "Releases that never reached the server; the lock stayed taken until its ttl.",
     &TypeCounts::release_failures},
};

struct HistogramFamily {
  std::string_view name;
  std::string_view help;
  Histogram TypeCounts::*histogram;
};

constexpr HistogramFamily kHistograms[] = {
    {"distlock_wait_seconds", "From the call to the grant, of granted acquisitions.",
     &TypeCounts::wait},
    {"distlock_hold_seconds", "From the grant to the release.", &TypeCounts::hold},
};

void append_histogram(std::string& out, std::string_view family, std::string_view type,
                      const Histogram& histogram) {
  const std::string bucket = std::string(family) + "_bucket";
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < kBuckets.size(); ++i) {
    cumulative += histogram.in_bucket[i];
    append_sample(out, bucket, type, ",le=\"" + format_number(kBuckets[i]) + "\"",
                  std::to_string(cumulative));
  }
  append_sample(out, bucket, type, ",le=\"+Inf\"", std::to_string(histogram.count));
  append_sample(out, std::string(family) + "_sum", type, "", format_number(histogram.sum));
  append_sample(out, std::string(family) + "_count", type, "", std::to_string(histogram.count));
}

}  // namespace

struct PrometheusMetrics::Counts {
  mutable std::mutex mutex;
  std::map<std::string, TypeCounts, std::less<>> by_type;

  void record(const Event& event) {
    std::lock_guard lock(mutex);
    auto found = by_type.find(event.type);
    if (found == by_type.end())
      found = by_type.emplace(std::string(event.type), TypeCounts{}).first;
    TypeCounts& counts = found->second;
    switch (event.kind) {
      case EventKind::acquired:
        ++counts.acquisitions;
        counts.wait.observe(event.waited);
        break;
      case EventKind::contended:
        ++counts.contended;
        break;
      case EventKind::timeout:
        ++counts.timeouts;
        break;
      case EventKind::released:
        ++counts.releases;
        counts.hold.observe(event.held);
        break;
      case EventKind::renewed:
        ++counts.renewals;
        break;
      case EventKind::renewal_failed:
        ++counts.renewal_failures;
        break;
      case EventKind::lost:
        ++counts.lost;
        break;
      case EventKind::release_failed:
        ++counts.release_failures;
        break;
    }
  }
};

PrometheusMetrics::PrometheusMetrics() : counts_(std::make_shared<Counts>()) {}

EventHook PrometheusMetrics::hook() const {
  return [counts = counts_](const Event& event) { counts->record(event); };
}

void PrometheusMetrics::record(const Event& event) { counts_->record(event); }

std::string PrometheusMetrics::text() const {
  std::string out;
  std::lock_guard lock(counts_->mutex);
  for (const auto& family : kCounters) {
    append_header(out, family.name, family.help, "counter");
    for (const auto& [type, counts] : counts_->by_type)
      append_sample(out, family.name, type, "", std::to_string(counts.*family.count));
  }
  for (const auto& family : kHistograms) {
    append_header(out, family.name, family.help, "histogram");
    for (const auto& [type, counts] : counts_->by_type)
      append_histogram(out, family.name, type, counts.*family.histogram);
  }
  return out;
}

}  // namespace distlock
