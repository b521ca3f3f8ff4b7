// The lock type of elections' locks is a compile-time error for a lock.
// EXPECT-ERROR: elections[ _]is[ _]reserved[ _]for[ _]leader[ _]election
// STANDARD: 17
#include <chrono>
#include <distlock/spec.h>

constexpr auto s = distlock::spec("elections", std::chrono::seconds(1));
