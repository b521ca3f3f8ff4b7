// SPDX-License-Identifier: Apache-2.0
//===- LockOrder.h - Lock-order cycles among a target's locked functions --===//
//
// Merges the lock inventories of a target's sources and checks the order in
// which its locked functions take locks: a locked function that calls another
// locked function directly holds the first lock while it takes the second.
// Two functions that do so in opposite orders can deadlock when they run at
// once, in two processes as in two threads. A locked coroutine that takes
// another lock of its own type, directly or through other locked functions,
// waits for itself. Only direct calls in woven sources are seen.
//
//===----------------------------------------------------------------------===//

#ifndef DISTLOCK_TOOL_LOCKORDER_H
#define DISTLOCK_TOOL_LOCKORDER_H

#include "LockInventory.h"

#include "llvm/Support/raw_ostream.h"

#include <vector>

namespace distlock {
namespace weave {

/// One record per function, sorted by name (a function defined in a header
/// is woven in every source that includes it), each keeping only the calls
/// that reach a locked function of the target.
std::vector<LockRecord>
mergeInventories(const std::vector<std::vector<LockRecord>> &Inventories);

struct LockOrderFindings {
  unsigned Cycles = 0;
  unsigned NestedSameType = 0;
  unsigned CoroutineReentries = 0;
};

/// Reports on \p OS, as clang reports: each cycle among different lock types
/// as an error at its first call, with a note naming each function and call
/// site of the cycle; each call from a locked function to another of the same
/// type under a different key as a warning. Calls under the same key are
/// reentrant and fine, except in a coroutine: its lease belongs to no thread
/// and is not re-entered, so each coroutine that, directly or through other
/// locked functions, takes another lock of its own type is an error at its
/// first call, with a note for each call on the way. A coroutine is gone
/// through only where its caller awaits it.
LockOrderFindings checkLockOrder(const std::vector<LockRecord> &Locks,
                                 llvm::raw_ostream &OS);

} // namespace weave
} // namespace distlock

#endif
