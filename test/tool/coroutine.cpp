// Asio coroutines: the guard awaits the locks, so the thread runs other coroutines while one
// waits, and co_returns the busy result (on_busy(skip): a value-initialized one; fallback: what
// the fallback coroutine gives). Clang parsing with libstdc++ would see an Asio without
// coroutines; the weaver sees the one GCC does, with no define from the build.
// REQUIRES: asio
// RUN: %weave %s -o %t.cpp -- %flags -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
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

#include <distlock/distlock.h>

// CHECK: #include <distlock/woven.h>
// CHECK-NEXT: #include <distlock/asio.h>
// CHECK-NEXT: #line 1 "{{.*}}coroutine.cpp"

int counter = 0;

// GUARD:asio::awaitable<int> increment({{\[\[}}             ]] int id, asio::io_context& io) {
// GUARD:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, co_await ::distlock::woven::async_take(distlock_woven_lock_.spec, ::distlock::woven::keys(id))); if (distlock_woven_guard_.busy()) co_return co_await ::distlock::woven::async_busy_result<int>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(id)&&>(id), static_cast<decltype(io)&&>(io));
[[distlock::lock("counter", 30s)]]
asio::awaitable<int> increment([[distlock::key]] int id, asio::io_context& io) {
  // Lets the other coroutines run while this one holds the lock: without it, they would
  // interleave here and lose updates.
  const int seen = counter;
  asio::steady_timer yield(io, std::chrono::milliseconds(0));
  co_await yield.async_wait(asio::use_awaitable);
  counter = seen + 1;
  co_return counter;
}

// GUARD:static_assert(::distlock::woven::skip_fits<int>(distlock_woven_lock_), "{{.*}}");
// GUARD:static_assert(::distlock::woven::fallback_fits<asio::awaitable<int>, ::distlock::woven::NoObject, decltype(id)>(distlock_woven_lock_), "{{.*}}");
[[distlock::lock("busy", 30s, distlock::try_only, distlock::on_busy(distlock::skip))]]
asio::awaitable<int> skipped([[distlock::key]] int id) { co_return id; }

asio::awaitable<int> later(int id) { co_return -id; }

[[distlock::lock("busy", 30s, distlock::try_only, distlock::on_busy(distlock::fallback(&later)))]]
asio::awaitable<int> fallen_back([[distlock::key]] int id) { co_return id; }

// GUARD:asio::awaitable<void> touch({{\[\[}}             ]] int id) {
// GUARD:{{.*}} if (distlock_woven_guard_.busy()) co_return co_await ::distlock::woven::async_busy_result<void>({{.*}});
[[distlock::lock("busy", 30s, distlock::try_only, distlock::on_busy(distlock::skip))]]
asio::awaitable<void> touch([[distlock::key]] int id) {
  std::printf("touched %d\n", id);
  co_return;
}

int main() {
  asio::io_context io;
  for (int i = 0; i < 100; ++i) asio::co_spawn(io, increment(1, io), asio::detached);
  io.run();
  // LIVE: counter 100
  std::printf("counter %d\n", counter);

  distlock::Lease held = distlock::default_client().acquire(distlock::spec("busy", "30s"), 3);
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        // LIVE-NEXT: skipped 0, fell back to -3, free 4
        const int skip = co_await skipped(3);
        const int fallback = co_await fallen_back(3);
        const int free = co_await skipped(4);
        std::printf("skipped %d, fell back to %d, free %d\n", skip, fallback, free);
        // LIVE-NEXT: touched 5
        co_await touch(3);
        co_await touch(5);
      },
      asio::detached);
  io.restart();
  io.run();
  return 0;
}
