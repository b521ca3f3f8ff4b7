// SPDX-License-Identifier: Apache-2.0
// The event hook's contract on a memory:// client (each backend's events: the shared suite in
// test/integration/lock_behaviour_test.cpp), and PrometheusMetrics' text for known events.
#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <distlock/distlock.h>

namespace distlock {
namespace {

using namespace std::chrono_literals;

TEST(EventHook, AHookThatThrowsIsLoggedAndTheLockWorksOn) {
  std::vector<std::string> errors;
  set_logger([&](LogLevel level, std::string_view message) {
    if (level == LogLevel::error) errors.emplace_back(message);
  });
  Options options;
  options.on_event = [](const Event&) { throw std::runtime_error("metrics backend down"); };
  auto client = Client::connect("memory://events-throwing-hook", options);
  Lease lease = client->acquire(spec("order", 30s), "42");
  EXPECT_TRUE(lease.valid());
  lease.release();
  set_logger({});
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("the event hook threw on a acquired event of lock type 'order': "
                           "metrics backend down"),
            std::string::npos)
      << errors[0];
  EXPECT_NE(errors[1].find("released event"), std::string::npos) << errors[1];
}

TEST(EventHook, AReleaseThatFindsTheLeaseGoneReportsItLost) {
  std::vector<EventKind> kinds;
  Options options;
  options.on_event = [&](const Event& event) { kinds.push_back(event.kind); };
  auto client = Client::connect("memory://events-lost-at-release", options);
  Lease lease = client->acquire(spec("order", 50ms, renew(false)), "42");
  auto other = Client::connect("memory://events-lost-at-release");
  // Taken over once the unrenewed lease ran out.
  Lease next = other->acquire(spec("order", 30s, wait(10s)), "42");
  EXPECT_THROW(lease.release(), LockLost);
  EXPECT_EQ(kinds,
            (std::vector<EventKind>{EventKind::acquired, EventKind::released, EventKind::lost}));
}

TEST(PrometheusMetrics, CountsAndBucketsEachTypeApart) {
  PrometheusMetrics metrics;
  const auto hook = metrics.hook();
  // Sums exact in binary, so that the text is known to the digit.
  hook({EventKind::acquired, "order", 250ms, 0ms});
  hook({EventKind::acquired, "order", 500ms, 0ms});
  hook({EventKind::acquired, "order", 2s, 0ms});
  hook({EventKind::released, "order", 0ms, 400s});
  metrics.record({EventKind::lost, "stock", 0ms, 0ms});
  const std::string text = metrics.text();
  for (const char* line : {
           "# TYPE distlock_acquisitions_total counter\n",
           "distlock_acquisitions_total{type=\"order\"} 3\n",
           "distlock_acquisitions_total{type=\"stock\"} 0\n",
           "distlock_lost_total{type=\"stock\"} 1\n",
           "# TYPE distlock_wait_seconds histogram\n",
           "distlock_wait_seconds_bucket{type=\"order\",le=\"0.001\"} 0\n",
           "distlock_wait_seconds_bucket{type=\"order\",le=\"0.1\"} 0\n",
           "distlock_wait_seconds_bucket{type=\"order\",le=\"0.5\"} 2\n",
           "distlock_wait_seconds_bucket{type=\"order\",le=\"1\"} 2\n",
           "distlock_wait_seconds_bucket{type=\"order\",le=\"5\"} 3\n",
           "distlock_wait_seconds_bucket{type=\"order\",le=\"+Inf\"} 3\n",
           "distlock_wait_seconds_sum{type=\"order\"} 2.75\n",
           "distlock_wait_seconds_count{type=\"order\"} 3\n",
           "distlock_hold_seconds_bucket{type=\"order\",le=\"300\"} 0\n",
           "distlock_hold_seconds_bucket{type=\"order\",le=\"+Inf\"} 1\n",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << "no line: " << line << "in:\n" << text;
  }
}

TEST(PrometheusMetrics, EscapesALabelValueAsTheFormatAsks) {
  PrometheusMetrics metrics;
  metrics.record({EventKind::timeout, "a\"b\\c\nd", 0ms, 0ms});
  EXPECT_NE(metrics.text().find("distlock_timeouts_total{type=\"a\\\"b\\\\c\\nd\"} 1\n"),
            std::string::npos)
      << metrics.text();
}

}  // namespace
}  // namespace distlock
