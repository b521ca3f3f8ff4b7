// fair is for exclusive locks: fair with write is a compile-time error.
// EXPECT-ERROR: fair[ _]is[ _]for[ _]exclusive[ _]locks[ _]only
#include <chrono>
#include <distlock/spec.h>

constexpr auto s = distlock::spec("order", std::chrono::seconds(30), distlock::write,
                                  distlock::fair);
