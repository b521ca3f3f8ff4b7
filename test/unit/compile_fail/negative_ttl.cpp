// A negative ttl in a constant-evaluated spec is a compile-time error.
// EXPECT-ERROR: ttl[ _]must[ _]be[ _]positive
#include <chrono>
#include <distlock/spec.h>

constexpr auto s = distlock::spec("order", std::chrono::milliseconds(-5));
