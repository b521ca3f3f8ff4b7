// SPDX-License-Identifier: Apache-2.0
//===- CoroutineBody.h - The lease and the reentries of a woven coroutine -===//
//
// A woven coroutine's lease belongs to no thread: its guard's LockedCall,
// declared at the top of its body, is the only place that holds it. So in the
// body the weaver points distlock::current(), current_leases() and
// checked(op, undo) at that guard, and refuses a call that would take a lock
// of the coroutine's own type again: the lease is not re-entered, so the call
// would wait for the coroutine itself until the spec's wait runs out.
//
//===----------------------------------------------------------------------===//

#ifndef DISTLOCK_TOOL_COROUTINEBODY_H
#define DISTLOCK_TOOL_COROUTINEBODY_H

#include "Diagnostics.h"
#include "LockedFunction.h"

#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Rewrite/Core/Rewriter.h"

#include <vector>

namespace distlock {
namespace weave {

struct BodyCall {
  const clang::CallExpr *Call = nullptr;
  /// Made in a lambda or a local class in the body: another function's call,
  /// which runs where and when that function does.
  bool InNestedFunction = false;
  /// The co_await whose operand the call is; null when nothing awaits it
  /// where it is made.
  const clang::CoawaitExpr *AwaitedBy = nullptr;
};

/// Every call in \p Body, in the order written.
std::vector<BodyCall> callsInBody(const clang::Stmt &Body);

/// Points the calls of distlock::current(), current_leases() and
/// checked(op, undo) in the body of the woven coroutine \p Definition at its
/// guard; warns of those in a lambda or local class, which see no coroutine's
/// lease.
void rewriteLeaseCalls(const clang::FunctionDecl &Definition,
                       const LockedFunction &Locked, clang::Rewriter &Rewrite,
                       Diagnostics &Diags);

/// Reports each call in the body of the woven coroutine \p Definition that
/// takes a lock of its own type: one awaiting a woven coroutine, or calling a
/// woven function that locks on the thread.
void checkCoroutineReentry(const clang::FunctionDecl &Definition,
                           const LockedFunction &Locked, Diagnostics &Diags);

} // namespace weave
} // namespace distlock

#endif
