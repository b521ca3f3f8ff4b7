// Boost.Asio coroutines: woven as Asio's are, through distlock/boost_asio.h (Boost 1.74, with
// no per-operation cancellation, is enough).
// REQUIRES: boost-asio
// RUN: %weave %s -o %t.cpp -- %flags -std=c++20
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s
// RUN: %gxx-link-at -std=c++20 %t.cpp %runtime -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=LIVE

// Boost 1.74's awaitable.hpp uses std::exchange without including <utility>.
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <cstdio>

#include <distlock/distlock.h>

// CHECK: #include <distlock/woven.h>
// CHECK-NEXT: #include <distlock/boost_asio.h>
// CHECK-NEXT: #line 1 "{{.*}}boost_coroutine.cpp"

int counter = 0;
int strangers = 0;

// CHECK: ::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, co_await ::distlock::woven::boost_async_take(distlock_woven_lock_.spec, ::distlock::woven::keys(id))); if (distlock_woven_guard_.busy()) co_return co_await ::distlock::woven::boost_async_busy_result<int>(
[[distlock::lock("counter", 30s)]]
boost::asio::awaitable<int> increment([[distlock::key]] int id, boost::asio::io_context& io) {
  const int seen = counter;
  boost::asio::steady_timer yield(io, std::chrono::milliseconds(0));
  co_await yield.async_wait(boost::asio::use_awaitable);
  // The coroutine's own lease, though the others ran on its thread meanwhile.
  // CHECK: if (::distlock::woven::current(distlock_woven_guard_)->name() != "counter:1") ++strangers;
  // CHECK: counter = ::distlock::woven::checked(distlock_woven_guard_, [&] { return seen + 1; }, [] {});
  if (distlock::current()->name() != "counter:1") ++strangers;
  counter = distlock::checked([&] { return seen + 1; }, [] {});
  co_return counter;
}

[[distlock::lock("busy", 30s, distlock::try_only, distlock::on_busy(distlock::skip))]]
boost::asio::awaitable<int> skipped([[distlock::key]] int id) { co_return id; }

int main() {
  boost::asio::io_context io;
  for (int i = 0; i < 100; ++i)
    boost::asio::co_spawn(io, increment(1, io), boost::asio::detached);
  io.run();
  // LIVE: counter 100, strangers 0
  std::printf("counter %d, strangers %d\n", counter, strangers);
  distlock::Lease held = distlock::default_client().acquire(distlock::spec("busy", "30s"), 3);
  boost::asio::co_spawn(
      io,
      [&]() -> boost::asio::awaitable<void> {
        // LIVE-NEXT: skipped 0, free 4
        const int skip = co_await skipped(3);
        const int free = co_await skipped(4);
        std::printf("skipped %d, free %d\n", skip, free);
      },
      boost::asio::detached);
  io.restart();
  io.run();
  return 0;
}
