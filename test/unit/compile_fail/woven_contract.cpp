// <distlock/woven.h> alone declares what a guard uses, and a guard built from it compiles.
// EXPECT-SUCCESS
#include <distlock/woven.h>

#include <string>

void reserve(const std::string& sku) {
  static constexpr ::distlock::woven::LockSpec distlock_woven_spec_ = [] {
    using namespace ::std::chrono_literals;
    return ::distlock::woven::spec("stock", 5s, distlock::wait(1s), distlock::renew(false));
  }();
  ::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_,
                                                      ::distlock::woven::key_of(sku, 42));
}
