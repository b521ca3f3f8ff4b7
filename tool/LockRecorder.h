// SPDX-License-Identifier: Apache-2.0
//===- LockRecorder.h - What the lock inventory says of one function ------===//
//
// Builds the inventory record of a woven function: its lock as written, its
// keys, its place, and every direct call its body makes to a function outside
// the system headers (distlock-lock-order keeps those that reach a locked
// function of the target).
//
//===----------------------------------------------------------------------===//

#ifndef DISTLOCK_TOOL_LOCKRECORDER_H
#define DISTLOCK_TOOL_LOCKRECORDER_H

#include "LockInventory.h"
#include "LockedFunction.h"

#include "clang/AST/Decl.h"

namespace distlock {
namespace weave {

LockRecord recordLock(const clang::FunctionDecl &Definition,
                      const LockedFunction &Locked);

} // namespace weave
} // namespace distlock

#endif
