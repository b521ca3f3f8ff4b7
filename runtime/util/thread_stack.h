// SPDX-License-Identifier: Apache-2.0
// Whether an object lives on the calling thread's stack: a Lease moved there is still held by
// the thread (a local std::optional, say), one moved anywhere else (the heap of a container or
// of a task another thread runs) is not.
#pragma once

namespace distlock::detail {

bool on_this_threads_stack(const void* address);

}  // namespace distlock::detail
