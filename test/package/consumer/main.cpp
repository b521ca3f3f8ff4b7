// SPDX-License-Identifier: Apache-2.0
// Takes a memory:// lock through the packaged runtime, and asks the operators' API (admin.h,
// in the user's standard too) about it: returns 0 when everything holds.
#include <distlock/admin.h>
#include <distlock/distlock.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <future>
#include <string>

using namespace std::chrono_literals;

namespace {

int failures = 0;

void expect(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "consumer: FAILED: %s\n", what);
    ++failures;
  }
}

}  // namespace

int main() {
  try {
    constexpr auto item_lock = distlock::spec("item", 10s, distlock::wait(2s));
    auto client = distlock::Client::connect("memory://package-test");

    std::uint64_t first_fence = 0;
    {
      distlock::Lease lease = client->acquire(item_lock, distlock::key_of("shelf", 7));
      first_fence = lease.fence();
      expect(lease.name() == "item:shelf:7", "lease.name() is \"item:shelf:7\"");
      expect(lease.fence() > 0, "the fence is positive");
      expect(lease.valid(), "a fresh lease is valid");

      // Another thread cannot take it while it is held.
      auto other = std::async(std::launch::async, [&] {
        return client->try_acquire(item_lock, distlock::key_of("shelf", 7)).has_value();
      });
      expect(!other.get(), "try_acquire from another thread finds the lock taken");

      lease.release();
      expect(!lease.valid(), "a released lease is not valid");
    }
    {
      auto again = client->try_acquire(item_lock, distlock::key_of("shelf", 7));
      expect(again.has_value(), "the released lock can be taken again");
      if (again) expect(again->fence() > first_fence, "the next holder gets a larger fence");
    }
    {
      // In-process locks are invisible to other processes, so the admin API refuses them.
      bool refused = false;
      try {
        (void)distlock::admin::LockAdmin::connect("memory://package-test");
      } catch (const distlock::ConfigError&) {
        refused = true;
      }
      expect(refused, "LockAdmin::connect refuses memory://");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: FAILED: exception: %s\n", e.what());
    return 1;
  }
  if (failures != 0) return 1;
  std::printf("consumer: OK, C++ %ld\n", static_cast<long>(__cplusplus));
  return 0;
}
