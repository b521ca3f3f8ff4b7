# SPDX-License-Identifier: Apache-2.0
# The lit suite of distlock-weave: one file per woven shape and per diagnostic.
import os

import lit.formats

config.name = "distlock-weave"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cpp"]
# unit/ holds the GoogleTest unit tests of the tool library, run by ctest.
config.excludes = ["Inputs", "unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.distlock_binary_dir, "test", "tool")

config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
# Woven programs that run take their locks in-process.
config.environment["DISTLOCK_URL"] = "memory://"

common = "-Wall -Wno-unused-parameter -I" + config.distlock_include_dir
# Woven code compiles as C++17 and as C++20 (the users' standards), by g++ and by clang++: each
# woven shape is compiled by g++ at C++17 and by clang++ at C++20, so every compiler and every
# standard sees every shape once (the other two pairings cost as much again and compile the same
# generated text; test/package's standards tests build the woven examples with all four).
# woven.h is precompiled for each pair (with_woven_pch.sh; CMakeLists.txt makes them).
with_woven_pch = "sh " + os.path.join(config.test_source_root, "with_woven_pch.sh") + " "
clangxx_pch = with_woven_pch + "-include-pch " + os.path.join(
    config.distlock_pch_dir, "clangxx-c++20", "woven.pch") + " "
# -pthread on every compile that uses the header: a link needs it, and it sets what the header
# was precompiled with.
gxx_pch = with_woven_pch + "-include " + os.path.join(
    config.distlock_pch_dir, "gxx-c++17", "distlock", "woven.h") + " "
pch_common = common + " -pthread"
clangxx = clangxx_pch + config.clangxx + " -std=c++20 "
gxx = gxx_pch + config.gxx + " -std=c++17 "
link = " ".join([config.distlock_runtime_library, config.runtime_dependencies, "-pthread"])

config.substitutions.append(("%weave", config.distlock_weave))
config.substitutions.append(("%lock-order", config.distlock_lock_order))
# Weaving flags for sources that include the runtime's headers themselves: the weaver parses
# as the user's build compiles, here the oldest standard supported (other tests weave at 20).
config.substitutions.append(("%flags", "-std=c++17 -I" + config.distlock_include_dir))
# The woven source compiled by g++ at C++17 (%gxx-syntax, %gxx-link) and by clang++ at C++20
# (%clangxx-syntax, %clangxx-run); a test uses one of each. The -at forms compile once, at the
# -std=... the test gives (for diagnostics that differ, and coroutines, which need C++20).
# A test that builds the source with %gxx-link needs no %gxx-syntax of it.
config.substitutions.append(("%clangxx-syntax-at", config.clangxx + " -fsyntax-only " + common))
config.substitutions.append(("%gxx-syntax-at", config.gxx + " -fsyntax-only " + common))
config.substitutions.append(("%gxx-link-at", config.gxx + " " + common))
config.substitutions.append(("%clangxx-syntax", clangxx + "-fsyntax-only " + pch_common))
config.substitutions.append(("%gxx-syntax", gxx + "-fsyntax-only " + pch_common))
config.substitutions.append(("%clangxx-run", clangxx + pch_common))
config.substitutions.append(("%gxx-link", gxx + pch_common))
config.substitutions.append(("%runtime", link))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
