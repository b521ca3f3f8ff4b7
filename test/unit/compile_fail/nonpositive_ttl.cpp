// A ttl of zero in a constant-evaluated spec is a compile-time error.
// EXPECT-ERROR: ttl[ _]must[ _]be[ _]positive
#include <chrono>
#include <distlock/spec.h>

constexpr auto s = distlock::spec("order", std::chrono::seconds(0));
