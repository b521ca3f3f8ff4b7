// SPDX-License-Identifier: Apache-2.0
// The text of a Redis script as the client loads it, for tests that run a script by hand.
#pragma once

#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

namespace distlock::testing {

// The named parts of runtime/backends/redis/locks/scripts, in order: the functions of lib/ the
// script calls first, then the script itself ("lib/release_hold", "release").
inline std::string redis_script_text(std::initializer_list<std::string_view> parts) {
  std::string text;
  for (const std::string_view part : parts) {
    std::ifstream in(std::string(DISTLOCK_REDIS_SCRIPTS_DIR) + "/" + std::string(part) + ".lua");
    std::stringstream read;
    read << in.rdbuf();
    EXPECT_FALSE(read.str().empty()) << "cannot read the script part " << part;
    text += read.str();
  }
  return text;
}

}  // namespace distlock::testing
