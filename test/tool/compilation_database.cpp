// -p reads the compile flags from compile_commands.json: the source only parses with the
// definition the database gives.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '[{"directory": "%t", "command": "clang++ -std=c++20 -DFROM_DATABASE=1 -c %s", "file": "%s"}]' > %t/compile_commands.json
// RUN: %weave %s -o %t/woven.cpp -p %t
// RUN: grep -v "^ *//" %t/woven.cpp | FileCheck %s

#ifndef FROM_DATABASE
#error "compiled without the flags of compile_commands.json"
#endif

// CHECK: ::distlock::key_of(id));
[[distlock::lock("db", 1000)]] void f([[distlock::key]] int id) {}
