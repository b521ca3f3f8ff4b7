// SPDX-License-Identifier: Apache-2.0
// The public headers compile as C++17 and as C++20. In C++20, a literal given to spec() (a
// text duration, the lock type) is checked by an immediate function, so a bad one is a
// compile-time error wherever it is written; in C++17 the check is constexpr, which makes it a
// compile-time error in constant evaluation (a constexpr spec, and every woven guard) and a
// ConfigError when a hand-written spec is built at run time.
#pragma once

// consteval in C++20, constexpr in C++17: see above.
#if __cplusplus >= 202002L
#define DISTLOCK_CONSTEVAL consteval
#else
#define DISTLOCK_CONSTEVAL constexpr
#endif
