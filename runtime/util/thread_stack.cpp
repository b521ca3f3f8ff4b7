// SPDX-License-Identifier: Apache-2.0
#include "util/thread_stack.h"

#include <pthread.h>

#include <cstdint>

#include "util/sanitizer.h"

#if defined(DISTLOCK_ADDRESS_SANITIZER)
#include <sanitizer/asan_interface.h>
#endif

namespace distlock::detail {
namespace {

struct StackRange {
  std::uintptr_t low = 0;
  std::uintptr_t high = 0;
};

// Read once per thread: pthread_getattr_np reads /proc for the main thread.
StackRange this_threads_stack() {
  StackRange range;
  pthread_attr_t attributes;
  if (pthread_getattr_np(pthread_self(), &attributes) != 0) return range;
  void* low = nullptr;
  std::size_t size = 0;
  if (pthread_attr_getstack(&attributes, &low, &size) == 0) {
    range.low = reinterpret_cast<std::uintptr_t>(low);
    range.high = range.low + size;
  }
  pthread_attr_destroy(&attributes);
  return range;
}

}  // namespace

bool on_this_threads_stack(const void* address) {
  thread_local const StackRange stack = this_threads_stack();
  const auto place = reinterpret_cast<std::uintptr_t>(address);
  if (place >= stack.low && place < stack.high) return true;
#if defined(DISTLOCK_ADDRESS_SANITIZER)
  // AddressSanitizer may give a function's locals a frame of its own off the stack.
  if (void* fake_stack = __asan_get_current_fake_stack())
    return __asan_addr_is_in_fake_stack(fake_stack, const_cast<void*>(address), nullptr, nullptr) !=
           nullptr;
#endif
  return false;
}

}  // namespace distlock::detail
