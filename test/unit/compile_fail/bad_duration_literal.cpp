// A malformed duration literal is a compile-time error even where the spec is built at run
// time: text literals are parsed by a consteval constructor.
// EXPECT-ERROR: bad[ _]duration
#include <distlock/spec.h>

distlock::LockSpec make() { return distlock::spec("order", "30x"); }
