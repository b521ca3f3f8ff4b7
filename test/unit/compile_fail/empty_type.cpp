// An empty lock type, given as a literal, is a compile-time error.
// EXPECT-ERROR: lock type must not be empty
#include <chrono>
#include <distlock/spec.h>

constexpr auto s = distlock::spec("", std::chrono::seconds(1));
