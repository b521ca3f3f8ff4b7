// SPDX-License-Identifier: Apache-2.0
// One locked function, compiled (and woven) with the standard its target gets.
#include <cstdio>

#include <distlock/distlock.h>

static_assert(__cplusplus == EXPECTED_CPLUSPLUS,
              "parsed with another C++ standard than the build compiles this source with");

[[distlock::lock("standard", 5s)]]
void report([[distlock::key]] const char* program) {
  std::printf("%s: C++ %ld, holding %s\n", program, static_cast<long>(__cplusplus),
              distlock::current()->name().c_str());
}

int main() {
  distlock::configure("memory://");
  report(PROGRAM);
}
