// SPDX-License-Identifier: Apache-2.0
// Prints, in Prometheus's text format, what PrometheusMetrics counted of a known run on
// memory://, for check_prometheus_metrics.py to read with the prometheus_client parser:
//   type "order": 3 plain acquisitions, 1 granted after a wait, 1 wait that timed out, 1 try
//                 that found it taken: 4 acquired, 2 contended, 2 timeouts, 4 released
//   type "stock \"main\"": 1 acquisition, released (a label value the format must escape)
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>

#include <distlock/distlock.h>

using namespace std::chrono_literals;

int main() {
  distlock::PrometheusMetrics metrics;
  distlock::Options options;
  options.on_event = metrics.hook();
  auto client = distlock::Client::connect("memory://prometheus-sample", options);
  auto other = distlock::Client::connect("memory://prometheus-sample");

  const auto order = distlock::spec("order", 30s, distlock::wait(20s));
  for (int i = 0; i < 3; ++i) client->acquire(order, "plain").release();

  std::optional<distlock::Lease> taken = other->acquire(order, "busy");
  if (client->try_acquire(order, "busy")) return 1;
  std::thread waiter([&] { client->acquire(order, "busy").release(); });
  while (client->stats().waiting == 0) std::this_thread::yield();
  taken->release();
  waiter.join();

  taken = other->acquire(order, "busy");
  try {
    client->acquire(distlock::spec("order", 30s, distlock::wait(50ms)), "busy");
    return 1;
  } catch (const distlock::LockTimeout&) {
  }
  taken->release();

  client->acquire(distlock::spec("stock \"main\"", 30s)).release();
  std::fputs(metrics.text().c_str(), stdout);
  return 0;
}
