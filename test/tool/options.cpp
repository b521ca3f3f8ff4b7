// Every option of the annotation reaches the spec the guard builds: the woven program reads
// the spec back inside each locked function (distlock_woven_lock_ is the guard's own name),
// and the lock kinds (read, write, permits, fair) reach the runtime, which takes them on memory://.
// RUN: %weave %s -o %t.cpp -- %flags
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-link %t.cpp %runtime -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=LIVE

#include <cstdio>

#include <distlock/distlock.h>

// What the bodies see unwoven (the weaver parses them so): woven, the guard's own annotation of
// the same name hides it.
constexpr struct { distlock::LockSpec spec; } distlock_woven_lock_{};

void show(const distlock::LockSpec& spec) {
  const char* mode = spec.mode == distlock::Mode::exclusive ? "exclusive"
                     : spec.mode == distlock::Mode::read    ? "read"
                                                            : "write";
  std::printf("%s: ttl %lld wait %lld renew %d mode %s permits %u fair %d\n",
              distlock::current()->name().c_str(), static_cast<long long>(spec.ttl.count()),
              static_cast<long long>(spec.wait.count()), spec.renew ? 1 : 0, mode,
              static_cast<unsigned>(spec.permits), spec.fair ? 1 : 0);
}

// GUARD:void waits({{\[\[}}             ]] int id) {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}options.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}options.cpp"
// GUARD-NEXT:                 "waits", 2s, distlock::wait(1500ms)
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}options.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}options.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}options.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, ::distlock::woven::NoObject, decltype(id)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}options.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(id)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(id)&&>(id)); show(distlock_woven_lock_.spec); }
[[distlock::lock("waits", 2s, distlock::wait(1500ms))]]
void waits([[distlock::key]] int id) { show(distlock_woven_lock_.spec); }

// GUARD:void tries({{\[\[}}             ]] int id) {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}options.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}options.cpp"
// GUARD-NEXT:                 "tries", "3s", distlock::try_only
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}options.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}options.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}options.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, ::distlock::woven::NoObject, decltype(id)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}options.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(id)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(id)&&>(id)); show(distlock_woven_lock_.spec); }
[[distlock::lock("tries", "3s", distlock::try_only)]]
void tries([[distlock::key]] int id) { show(distlock_woven_lock_.spec); }

// GUARD:void unrenewed({{\[\[}}             ]] int id) {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}options.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}options.cpp"
// GUARD-NEXT:                 "unrenewed", 4000, distlock::renew(false), distlock::wait(2s)
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}options.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}options.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}options.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, ::distlock::woven::NoObject, decltype(id)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}options.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(id)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(id)&&>(id)); show(distlock_woven_lock_.spec); }
[[distlock::lock("unrenewed", 4000, distlock::renew(false), distlock::wait(2s))]]
void unrenewed([[distlock::key]] int id) { show(distlock_woven_lock_.spec); }

// GUARD:void read_report({{\[\[}}             ]] int id) {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}options.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}options.cpp"
// GUARD-NEXT:                 "report", 5s, distlock::read
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}options.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}options.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}options.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, ::distlock::woven::NoObject, decltype(id)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}options.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(id)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(id)&&>(id)); show(distlock_woven_lock_.spec); }
[[distlock::lock("report", 5s, distlock::read)]]
void read_report([[distlock::key]] int id) { show(distlock_woven_lock_.spec); }

// GUARD:void write_report({{\[\[}}             ]] int id) {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}options.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}options.cpp"
// GUARD-NEXT:                 "report", 5s, distlock::write, distlock::wait(1s)
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}options.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}options.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}options.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, ::distlock::woven::NoObject, decltype(id)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}options.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(id)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(id)&&>(id)); show(distlock_woven_lock_.spec); }
[[distlock::lock("report", 5s, distlock::write, distlock::wait(1s))]]
void write_report([[distlock::key]] int id) { show(distlock_woven_lock_.spec); }

[[distlock::lock("pool", 5s, distlock::permits(3))]]
void use_pool([[distlock::key]] int id) { show(distlock_woven_lock_.spec); }

[[distlock::lock("queue", 5s, distlock::fair, distlock::wait(1s))]]
void in_turn([[distlock::key]] int id) { show(distlock_woven_lock_.spec); }

// LIVE:      waits:1: ttl 2000 wait 1500 renew 1 mode exclusive permits 0 fair 0
// LIVE-NEXT: tries:2: ttl 3000 wait 0 renew 1 mode exclusive permits 0 fair 0
// LIVE-NEXT: unrenewed:3: ttl 4000 wait 2000 renew 0 mode exclusive permits 0 fair 0
// LIVE-NEXT: report:4: ttl 5000 wait {{[0-9]+}} renew 1 mode read permits 0 fair 0
// LIVE-NEXT: report:5: ttl 5000 wait 1000 renew 1 mode write permits 0 fair 0
// LIVE-NEXT: pool:6: ttl 5000 wait {{[0-9]+}} renew 1 mode exclusive permits 3 fair 0
// LIVE-NEXT: queue:7: ttl 5000 wait 1000 renew 1 mode exclusive permits 0 fair 1
int main() {
  waits(1);
  tries(2);
  unrenewed(3);
  read_report(4);
  write_report(5);
  use_pool(6);
  in_turn(7);
}
