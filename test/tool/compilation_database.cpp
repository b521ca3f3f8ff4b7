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

// CHECK: ::distlock::woven::keys(id));
// GUARD:{{\[\[}}                          ]] void f({{\[\[}}             ]] int id) {
// GUARD-NEXT:#line [[@LINE+12]] "{{.*}}compilation_database.cpp"
// GUARD-NEXT:static constexpr auto distlock_woven_lock_ = [] { using namespace ::std::chrono_literals; return ::distlock::woven::annotation(
// GUARD-NEXT:#line [[@LINE+10]] "{{.*}}compilation_database.cpp"
// GUARD-NEXT:                 "db", 1000
// GUARD-NEXT:#line [[@LINE+8]] "{{.*}}compilation_database.cpp"
// GUARD-NEXT:); }();
// GUARD-NEXT:#line [[@LINE+6]] "{{.*}}compilation_database.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::skip_fits<void>(distlock_woven_lock_), "on_busy(skip) needs a return type it can value-initialize (void or a default-constructible type); or use on_busy(fallback(&f))");
// GUARD-NEXT:#line [[@LINE+4]] "{{.*}}compilation_database.cpp"
// GUARD-NEXT:static_assert(::distlock::woven::fallback_fits<void, ::distlock::woven::NoObject, decltype(id)>(distlock_woven_lock_), "on_busy(fallback(&f)): f must take this function's parameters and return its return type (for a member: of the same class, as const)");
// GUARD-NEXT:#line [[@LINE+2]] "{{.*}}compilation_database.cpp"
// GUARD-NEXT:::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, ::distlock::woven::keys(id)); if (distlock_woven_guard_.busy()) return ::distlock::woven::busy_result<void>(distlock_woven_lock_, ::distlock::woven::no_object, static_cast<decltype(id)&&>(id));}
[[distlock::lock("db", 1000)]] void f([[distlock::key]] int id) {}
