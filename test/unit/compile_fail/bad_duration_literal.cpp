// A malformed duration literal is a compile-time error even where the spec is built at run
// time: text literals are parsed by a consteval constructor. C++17 has none: there, see
// bad_duration_literal_constexpr.cpp (and the woven guard, which is always constexpr).
// STANDARD: 20
// EXPECT-ERROR: bad[ _]duration
#include <distlock/spec.h>

distlock::LockSpec make() { return distlock::spec("order", "30x"); }
