// A negative wait in a constant-evaluated spec is a compile-time error.
// EXPECT-ERROR: wait[ _]must[ _]not[ _]be[ _]negative
#include <chrono>
#include <distlock/spec.h>

constexpr auto s = distlock::spec("order", std::chrono::seconds(30),
                                  distlock::wait(std::chrono::seconds(-1)));
