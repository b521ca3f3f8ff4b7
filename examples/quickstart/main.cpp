// SPDX-License-Identifier: Apache-2.0
#include <distlock/distlock.h>

#include <iostream>
#include <stdexcept>
#include <string>

// One lock per order, "order:<id>": a 30 s lease, renewed while ship() runs.
[[distlock::lock("order", 30s)]]
void ship([[distlock::key]] const std::string& order_id) {
  const distlock::Lease* lease = distlock::current();  // nullptr when the build did not weave
  if (lease == nullptr) throw std::logic_error("ship() ran unlocked: call distlock_weave()");
  std::cout << "shipping order " << order_id << " under " << lease->name() << ", fence "
            << lease->fence() << '\n';
}

int main() { ship("42"); }
