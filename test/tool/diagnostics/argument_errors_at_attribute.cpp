// Mistakes in the lock arguments are the C++ compiler's errors, reported at
// the attribute's own line and column through #line, in C++17 as in C++20.
// RUN: %weave %s -o %t.cpp -- -std=c++20
// RUN: not %clangxx-syntax-at -std=c++20 %t.cpp 2>&1 | FileCheck %s --check-prefixes=CLANG,CLANG20
// RUN: not %clangxx-syntax-at -std=c++17 %t.cpp 2>&1 | FileCheck %s --check-prefixes=CLANG,CLANG17
// RUN: not %gxx-syntax-at -std=c++20 %t.cpp 2>&1 | FileCheck %s --check-prefix=GCC
// RUN: not %gxx-syntax-at -std=c++17 %t.cpp 2>&1 | FileCheck %s --check-prefix=GCC

constexpr int kZero = 0;

// CLANG20: argument_errors_at_attribute.cpp:[[@LINE+5]]:27: error: call to consteval function 'distlock::DurationArg::DurationArg<4UL>' is not a constant expression
// CLANG17: argument_errors_at_attribute.cpp:[[@LINE+4]]:{{[0-9]+}}: error: constexpr variable 'distlock_woven_lock_' must be initialized by a constant expression
// CLANG17: note: non-constexpr function 'error_bad_duration_write_a_number_and_ms_s_m_or_h' cannot be used in a constant expression
// GCC: argument_errors_at_attribute.cpp:[[@LINE+2]]:{{[0-9]+}}: in 'constexpr' expansion of 'distlock::DurationArg("30x")'
// GCC: error: call to non-'constexpr' function {{.*}}error_bad_duration_write_a_number_and_ms_s_m_or_h
[[distlock::lock("order", "30x")]] void a() {}

// CLANG: argument_errors_at_attribute.cpp:[[@LINE+2]]:{{[0-9]+}}: error: constexpr variable 'distlock_woven_lock_' must be initialized by a constant expression
// CLANG: note: non-constexpr function 'error_ttl_must_be_positive' cannot be used in a constant expression
[[distlock::lock("order", kZero)]] void b() {}

// CLANG: argument_errors_at_attribute.cpp:[[@LINE+2]]:{{[0-9]+}}: error: constexpr variable 'distlock_woven_lock_' must be initialized by a constant expression
// CLANG: note: non-constexpr function 'error_permits_must_be_between_1_and_4294967295' cannot be used in a constant expression
[[distlock::lock("pool", 1000, distlock::permits(0))]] void no_permits() {}

// CLANG: argument_errors_at_attribute.cpp:[[@LINE+2]]:{{[0-9]+}}: error: constexpr variable 'distlock_woven_lock_' must be initialized by a constant expression
// CLANG: note: non-constexpr function 'error_permits_cannot_be_read_or_write' cannot be used in a constant expression
[[distlock::lock("pool", 1000, distlock::permits(2), distlock::read)]] void read_permits() {}

// CLANG: argument_errors_at_attribute.cpp:[[@LINE+2]]:18: error: use of undeclared identifier 'kUnknownType'
// GCC: argument_errors_at_attribute.cpp:[[@LINE+1]]:18: error: 'kUnknownType' was not declared in this scope
[[distlock::lock(kUnknownType, 1000)]] void c() {}
