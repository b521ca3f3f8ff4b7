// permits(0) in a constant-evaluated spec is a compile-time error: a semaphore needs a permit.
// EXPECT-ERROR: permits[ _]must[ _]be[ _]between[ _]1[ _]and[ _]4294967295
#include <chrono>
#include <distlock/spec.h>

constexpr auto s = distlock::spec("pool", std::chrono::seconds(30), distlock::permits(0));
