// An empty type literal is rejected during compilation even where the spec itself is built at
// run time (as woven code builds it: a temporary inside a function body).
// EXPECT-ERROR: lock[ _]type[ _]must[ _]not[ _]be[ _]empty
#include <chrono>
#include <distlock/spec.h>

distlock::LockSpec make() { return distlock::spec("", std::chrono::seconds(1)); }
