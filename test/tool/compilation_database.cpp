// -p reads the compile flags from compile_commands.json: the source only parses with the
// definition the database gives.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '[{"directory": "%t", "command": "clang++ -std=c++20 -DFROM_DATABASE=1 -c %s", "file": "%s"}]' > %t/compile_commands.json
// RUN: %weave %s -o %t/woven.cpp -p %t
// RUN: grep -v "^ *//" %t/woven.cpp | FileCheck %s
// RUN: grep -v "^ *//" %t/woven.cpp | FileCheck %s --check-prefix=GUARD --strict-whitespace --match-full-lines
// RUN: %clangxx-syntax -DFROM_DATABASE=1 %t/woven.cpp
// RUN: %gxx-syntax -DFROM_DATABASE=1 %t/woven.cpp

#ifndef FROM_DATABASE
#error "compiled without the flags of compile_commands.json"
#endif

// CHECK: ::distlock::woven::key_of(id));
// GUARD:{{\[\[}}                          ]] void f({{\[\[}}             ]] int id) {
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}compilation_database.cpp"
// GUARD-NEXT:static constexpr ::distlock::woven::LockSpec distlock_woven_spec_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::spec(
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}compilation_database.cpp"
// GUARD-NEXT:                 "db", 1000
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}compilation_database.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+2]] "{{.*}}compilation_database.cpp"
// GUARD-NEXT:::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_, ::distlock::woven::key_of(id));}
[[distlock::lock("db", 1000)]] void f([[distlock::key]] int id) {}
