// SPDX-License-Identifier: Apache-2.0
// Counts a client's lock events as Prometheus metrics, in the text exposition format (0.0.4),
// for a service to serve on the /metrics endpoint it already has:
//
//   distlock::PrometheusMetrics metrics;
//   distlock::Options options;
//   options.on_event = metrics.hook();
//   auto client = distlock::Client::connect(url, options);
//   ...                       // in the /metrics handler: body += metrics.text();
//
// Per lock type (label `type`):
//   distlock_acquisitions_total, distlock_contended_total, distlock_timeouts_total,
//   distlock_releases_total, distlock_renewals_total, distlock_renewal_failures_total,
//   distlock_lost_total                                             counters
//   distlock_wait_seconds   from the call to the grant, of granted acquisitions   histogram
//   distlock_hold_seconds   from the grant to the release                         histogram
// Both histograms have the buckets kHistogramBuckets (seconds; +Inf besides).
//
// One PrometheusMetrics may count several clients. Thread-safe. The hook shares the counts, so
// it may outlive this object.
#pragma once

#include <array>
#include <memory>
#include <string>

#include <distlock/events.h>

namespace distlock {

// The metrics of the clients whose Options::on_event is hook(): see the top of this file.
class PrometheusMetrics {
 public:
  // The upper bounds of the wait and hold histograms, in seconds.
  static constexpr std::array<double, 12> kHistogramBuckets = {0.001, 0.005, 0.01, 0.05, 0.1, 0.5,
                                                               1,     5,     10,   30,   60,  300};

  PrometheusMetrics();

  // For Options::on_event.
  EventHook hook() const;
  // Counts one event; what the hook does.
  void record(const Event& event);
  // Every metric with its HELP and TYPE lines, then one sample (or histogram) per lock type
  // seen, in name order.
  std::string text() const;

 private:
  struct Counts;
  std::shared_ptr<Counts> counts_;
};

}  // namespace distlock
