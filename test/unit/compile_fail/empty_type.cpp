// An empty lock type, given as a literal, is a compile-time error.
// EXPECT-ERROR: lock[ _]type[ _]must[ _]not[ _]be[ _]empty
#include <chrono>
#include <distlock/spec.h>

constexpr auto s = distlock::spec("", std::chrono::seconds(1));
