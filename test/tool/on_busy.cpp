// on_busy: with skip, a call that finds the lock busy past its wait returns a value-initialized
// result and the body does not run; with fallback(&f), it returns f(the same arguments), for a
// member f on the same object. A lock held by another thread makes each call busy; the same
// calls on a free lock run their bodies.
// RUN: %weave %s -o %t.cpp -- %flags
// RUN: grep -v "^ *//" %t.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax %t.cpp
// RUN: %gxx-link %t.cpp %runtime -o %t.exe
// RUN: %t.exe | FileCheck %s --check-prefix=LIVE

#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include <distlock/distlock.h>

using namespace std::chrono_literals;

int bodies_run = 0;

// GUARD:int count_job(int id) {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}on_busy.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}on_busy.cpp"
// GUARD-NEXT:                 "job", 5s, distlock::try_only, distlock::on_busy(distlock::skip)
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}on_busy.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}on_busy.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<int>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}on_busy.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<int, ::distlock::woven::NoObject, decltype(id)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+3]] "{{.*}}on_busy.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys()); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<int>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(id)&&>(id));
[[distlock::lock("job", 5s, distlock::try_only, distlock::on_busy(distlock::skip))]]
int count_job(int id) {
  ++bodies_run;
  return id;
}

[[distlock::lock("job", 5s, distlock::wait(20ms), distlock::on_busy(distlock::skip))]]
std::optional<std::string> report(int id) {
  ++bodies_run;
  return "report " + std::to_string(id);
}

[[distlock::lock("job", 5s, distlock::try_only, distlock::on_busy(distlock::skip))]]
void nightly() { ++bodies_run; }

[[distlock::lock("job", 5s, distlock::try_only, distlock::on_busy(distlock::skip))]]
bool flagged() {
  ++bodies_run;
  return true;
}

std::string cached(int id, const std::string& why) {
  return "cached " + std::to_string(id) + " (" + why + ")";
}

[[distlock::lock("job", 5s, distlock::try_only, distlock::on_busy(distlock::fallback(&cached)))]]
std::string fresh(int id, const std::string& why) {
  ++bodies_run;
  return "fresh " + std::to_string(id) + " (" + why + ")";
}

// A by-value argument reaches the fallback moved, not copied: the body never saw it.
std::string count_chars(std::string text) { return std::to_string(text.size()) + " chars"; }

[[distlock::lock("job", 5s, distlock::try_only, distlock::on_busy(distlock::fallback(&count_chars)))]]
std::string upper(std::string text) {
  ++bodies_run;
  return "upper " + text;
}

class Shelf {
 public:
  int stale(int sku) const { return -sku * scale_; }

  [[distlock::lock("job", 5s, distlock::try_only, distlock::on_busy(distlock::fallback(&Shelf::stale)))]]
  int stock(int sku) const {
    ++bodies_run;
    return sku * scale_;
  }

 private:
  int scale_ = 10;
};

void calls(const char* when) {
  std::printf("%s: count_job %d, report '%s', ", when, count_job(7),
              report(8).value_or("(empty)").c_str());
  nightly();
  std::printf("flagged %d, fresh '%s', upper '%s', stock %d\n", flagged(), fresh(9, "why").c_str(),
              upper("abc").c_str(), Shelf().stock(3));
}

// LIVE:      free: count_job 7, report 'report 8', flagged 1, fresh 'fresh 9 (why)', upper 'upper abc', stock 30
// LIVE-NEXT: bodies run: 7
// LIVE-NEXT: busy: count_job 0, report '(empty)', flagged 0, fresh 'cached 9 (why)', upper '3 chars', stock -30
// LIVE-NEXT: bodies run: 0
int main() {
  calls("free");
  std::printf("bodies run: %d\n", std::exchange(bodies_run, 0));
  // Another thread's lease: the calls' own thread cannot reenter it.
  distlock::Lease held = distlock::default_client().acquire(distlock::spec("job", 5s), {});
  std::thread([] { calls("busy"); }).join();
  std::printf("bodies run: %d\n", bodies_run);
}
