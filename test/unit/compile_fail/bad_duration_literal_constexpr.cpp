// A malformed duration literal in a spec evaluated as a constant (a constexpr spec; every
// woven guard builds its spec so) is a compile-time error in C++17 as in C++20.
// EXPECT-ERROR: bad[ _]duration
#include <distlock/spec.h>

constexpr distlock::LockSpec order_lock = distlock::spec("order", "30x");
