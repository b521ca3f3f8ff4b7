// --flags-of parses the source with another file's entry in compile_commands.json: the woven
// copy's, which the build compiles (distlock_weave()). The entry's forced include is read as
// text even beside a precompiled header Clang cannot read (GCC's, from CMake's
// target_precompile_headers); a file without an entry of its own is an error, never the
// flags of a neighbour (the database infers one for any file, as in a unity build).
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '#define FROM_FORCED_INCLUDE 1' > %t/cmake_pch.hxx
// RUN: echo 'made by another compiler' > %t/cmake_pch.hxx.gch
// RUN: echo '[{"directory": "%t", "command": "c++ -std=c++20 -Winvalid-pch -include %t/cmake_pch.hxx -c %t/woven.cpp", "file": "%t/woven.cpp"}]' > %t/compile_commands.json
// RUN: %weave %s -o %t/woven.cpp -p %t --flags-of %t/woven.cpp
// RUN: FileCheck %s --input-file %t/woven.cpp
// RUN: sh -c '%weave %s -o %t/other_woven.cpp -p %t --flags-of %t/other.cpp; echo "exit=$?"' \
// RUN:   2>&1 | FileCheck %s --check-prefix=NO-ENTRY
// RUN: not ls %t/other_woven.cpp

#ifndef FROM_FORCED_INCLUDE
#error "parsed without the entry's forced include"
#endif

// CHECK: ::distlock::woven::LockedCall distlock_woven_guard_
[[distlock::lock("pch", 1000)]] void f([[distlock::key]] int id) {}

// NO-ENTRY: distlock-weave: the compilation database has no command of its own for '{{.*}}other.cpp' (--flags-of); is it a source of a target that EXPORT_COMPILE_COMMANDS, outside a unity build (SKIP_UNITY_BUILD_INCLUSION)?
// NO-ENTRY-NEXT: exit=2
