// The lease of a woven coroutine: in its body, distlock::current(), current_leases() and
// checked(op, undo) are pointed at the coroutine's own guard, matched by the function the
// call resolves to (a using-directive, a template's dependent call). A thousand coroutines
// interleaved on one thread each see their own lease; a coroutine without the attribute,
// awaited from a woven one, sees the thread's (none): a woven coroutine never puts its lease
// on the thread.
// REQUIRES: asio
// RUN: %weave %s -o %t.cpp -- %flags -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: %clangxx-syntax-at -std=c++20 -DASIO_HAS_CO_AWAIT -DASIO_HAS_STD_COROUTINE %t.cpp
// RUN: %gxx-link-at -std=c++20 %t.cpp %runtime -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=LIVE

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>

#include <chrono>
#include <cstdio>
#include <string>

#include <distlock/distlock.h>

int mismatches = 0;
int checked_steps = 0;

asio::awaitable<void> yield(asio::io_context& io) {
  asio::steady_timer timer(io, std::chrono::milliseconds(0));
  co_await timer.async_wait(asio::use_awaitable);
}

// Not woven: the thread's lease, which the woven coroutine awaiting it did not put there.
// CHECK: asio::awaitable<bool> sees_a_thread_lease() { co_return distlock::current() != nullptr; }
asio::awaitable<bool> sees_a_thread_lease() { co_return distlock::current() != nullptr; }

// CHECK-LABEL: asio::awaitable<void> job(
// CHECK: const distlock::Lease* mine = ::distlock::woven::current(distlock_woven_guard_);
// CHECK: if (::distlock::woven::current(distlock_woven_guard_) != mine ||
// CHECK: ::distlock::woven::current_leases(distlock_woven_guard_).size() != 1)
// CHECK: auto lease_of = [lease = ::distlock::woven::current(distlock_woven_guard_)] { return lease; };
// CHECK: ::distlock::woven::checked(distlock_woven_guard_, [&] { return ++checked_steps; }, [] {});
[[distlock::lock("job", 30s)]]
asio::awaitable<void> job([[distlock::key]] int id, asio::io_context& io) {
  const distlock::Lease* mine = distlock::current();
  const std::string name = "job:" + std::to_string(id);
  for (int round = 0; round < 3; ++round) {
    // The other coroutines run here, each in its own locked call.
    co_await yield(io);
    if (distlock::current() != mine || mine->name() != name ||
        distlock::current_leases().size() != 1)
      ++mismatches;
  }
  if (co_await sees_a_thread_lease()) ++mismatches;
  // A lambda's capture is initialized in the body: the coroutine's lease, for the lambda.
  auto lease_of = [lease = distlock::current()] { return lease; };
  if (lease_of() != mine) ++mismatches;
  distlock::checked([&] { return ++checked_steps; }, [] {});
}

using namespace distlock;

// CHECK-LABEL: asio::awaitable<std::uint64_t> fence_of(
// CHECK: co_return ::distlock::woven::current(distlock_woven_guard_)->fence();
[[distlock::lock("fenced", 30s)]]
asio::awaitable<std::uint64_t> fence_of([[distlock::key]] int id) {
  co_return current()->fence();
}

// CHECK-LABEL: asio::awaitable<std::size_t> both(
// CHECK: co_return ::distlock::woven::current_leases(distlock_woven_guard_).size();
[[distlock::lock("pair", 30s, distlock::per_key)]]
asio::awaitable<std::size_t> both([[distlock::key]] int a, [[distlock::key]] int b) {
  co_return current_leases().size();
}

// A template's call of checked depends on T: matched among the names it may call.
// CHECK-LABEL: asio::awaitable<T> doubled(
// CHECK: co_return ::distlock::woven::checked(distlock_woven_guard_, [&] { return value + value; },
// [] {});
template <class T>
[[distlock::lock("doubled", 30s)]]
asio::awaitable<T> doubled([[distlock::key]] int id, T value) {
  co_return distlock::checked([&] { return value + value; }, [] {});
}

int main() {
  asio::io_context io;
  for (int i = 0; i < 1000; ++i) asio::co_spawn(io, job(i, io), asio::detached);
  io.run();
  // LIVE: mismatches 0, checked 1000
  std::printf("mismatches %d, checked %d\n", mismatches, checked_steps);

  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        // LIVE-NEXT: fenced 1, leases 2, doubled 42, outside none
        const bool fenced = co_await fence_of(1) > 0;
        const std::size_t leases = co_await both(1, 2);
        const int twice = co_await doubled(1, 21);
        std::printf("fenced %d, leases %zu, doubled %d, outside %s\n", fenced, leases, twice,
                    distlock::current() == nullptr ? "none" : "some");
      },
      asio::detached);
  io.restart();
  io.run();
  return 0;
}
