// A semaphore has no read side: read with permits is a compile-time error.
// EXPECT-ERROR: permits[ _]cannot[ _]be[ _]read[ _]or[ _]write
#include <chrono>
#include <distlock/spec.h>

constexpr auto s = distlock::spec("pool", std::chrono::seconds(30), distlock::permits(4),
                                  distlock::read);
