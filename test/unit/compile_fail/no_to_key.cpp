// A key of a type with no to_key is a compile-time error whose message says what to do.
// EXPECT-ERROR: static assertion failed.*to_key
#include <distlock/key.h>

namespace app {
struct SomeStructWithoutToKey {
  int id;
};
}  // namespace app

void use() { (void)distlock::to_key(app::SomeStructWithoutToKey{42}); }
