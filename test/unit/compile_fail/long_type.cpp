// A lock type literal longer than a spec holds is a compile-time error.
// EXPECT-ERROR: lock[ _]type[ _]longer[ _]than[ _]128[ _]bytes
#include <chrono>
#include <distlock/spec.h>

constexpr auto s = distlock::spec(
    "a-lock-type-of-more-than-one-hundred-and-twenty-eight-bytes-which-no-spec-can-hold-because-"
    "its-type-is-copied-into-a-fixed-buffer",
    std::chrono::seconds(1));
