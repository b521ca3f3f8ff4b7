// <distlock/woven.h> alone declares what a guard uses, and a guard built from it compiles.
// EXPECT-SUCCESS
#include <distlock/woven.h>

#include <string>

int reserve(const std::string& sku) {
  static constexpr auto distlock_woven_lock_ = [] {
    using namespace ::std::chrono_literals;
    return ::distlock::woven::annotation("stock", 5s, distlock::wait(1s), distlock::renew(false),
                                         distlock::on_busy(distlock::skip));
  }();
  static_assert(::distlock::woven::skip_fits<int>(distlock_woven_lock_), "skip");
  static_assert(::distlock::woven::fallback_fits<int, ::distlock::woven::NoObject, decltype(sku)>(
                    distlock_woven_lock_),
                "fallback");
  static_assert(!::distlock::woven::calls_fallback(distlock_woven_lock_), "no fallback");
  static_assert(!::distlock::woven::raises_when_busy(distlock_woven_lock_), "skips");
  ::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec,
                                                      ::distlock::woven::keys(sku, 42));
  if (distlock_woven_guard_.busy())
    return ::distlock::woven::busy_result<int>(distlock_woven_lock_, ::distlock::woven::no_object,
                                               static_cast<decltype(sku)&&>(sku));
  return 1;
}
