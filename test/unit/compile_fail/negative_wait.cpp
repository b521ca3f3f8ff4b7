// A negative wait in a constant-evaluated spec is a compile-time error.
// EXPECT-ERROR: wait must not be negative
#include <chrono>
#include <distlock/spec.h>

constexpr auto s = distlock::spec("order", std::chrono::seconds(30),
                                  distlock::wait(std::chrono::seconds(-1)));
