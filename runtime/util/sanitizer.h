// SPDX-License-Identifier: Apache-2.0
// Which sanitizer compiles this file: GCC says so with __SANITIZE_ADDRESS__ and
// __SANITIZE_THREAD__, Clang before 18 only through __has_feature. The runtime asks where a
// sanitizer changes what it can see (AddressSanitizer moves locals off the thread's stack), and
// the tests where one slows them down.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define DISTLOCK_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DISTLOCK_ADDRESS_SANITIZER 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define DISTLOCK_THREAD_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DISTLOCK_THREAD_SANITIZER 1
#endif
#endif
