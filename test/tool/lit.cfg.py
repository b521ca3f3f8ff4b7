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
# Woven code compiles as C++17 and as C++20 (the users' standards): each compile runs twice,
# with woven.h precompiled at each (each_standard.sh; CMakeLists.txt makes them).
each_standard = "sh " + os.path.join(config.test_source_root, "each_standard.sh") + " "
clangxx_pch = each_standard + "--pch -include-pch " + os.path.join(
    config.distlock_pch_dir, "clangxx-@STD@", "woven.pch") + " "
# -pthread on every compile that uses the header: a link needs it, and it sets what the header
# was precompiled with.
gxx_pch = each_standard + "--pch -include " + os.path.join(
    config.distlock_pch_dir, "gxx-@STD@", "distlock", "woven.h") + " "
pch_common = common + " -pthread"
link = " ".join([config.distlock_runtime_library, config.runtime_dependencies, "-pthread"])

config.substitutions.append(("%weave", config.distlock_weave))
config.substitutions.append(("%lock-order", config.distlock_lock_order))
# Weaving flags for sources that include the runtime's headers themselves: the weaver parses
# as the user's build compiles, here the oldest standard supported (other tests weave at 20).
config.substitutions.append(("%flags", "-std=c++17 -I" + config.distlock_include_dir))
# The woven source compiled by both compilers the project supports, at C++17 and at C++20;
# the -at forms compile once, at the -std=... the test gives (for diagnostics that differ).
# A test that builds the source with %gxx-link needs no %gxx-syntax of it: the link compiles it
# with the same flags and standards.
config.substitutions.append(("%clangxx-syntax-at", config.clangxx + " -fsyntax-only " + common))
config.substitutions.append(("%gxx-syntax-at", config.gxx + " -fsyntax-only " + common))
config.substitutions.append(("%gxx-link-at", config.gxx + " " + common))
config.substitutions.append(("%clangxx-syntax", clangxx_pch + config.clangxx + " -fsyntax-only " + pch_common))
config.substitutions.append(("%gxx-syntax", gxx_pch + config.gxx + " -fsyntax-only " + pch_common))
config.substitutions.append(("%clangxx-run", clangxx_pch + config.clangxx + " " + pch_common))
config.substitutions.append(("%gxx-link", gxx_pch + config.gxx + " " + pch_common))
config.substitutions.append(("%runtime", link))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
