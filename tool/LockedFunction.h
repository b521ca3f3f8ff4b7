// SPDX-License-Identifier: Apache-2.0
//===- LockedFunction.h - One function definition to weave ----------------===//
//
// Checks a definition whose declarations carry [[distlock::lock]] against
// what weaving can do, and works out its guard: the lock arguments as
// written, the key expressions in parameter order, and where the body opens.
//
//===----------------------------------------------------------------------===//

#ifndef DISTLOCK_TOOL_LOCKEDFUNCTION_H
#define DISTLOCK_TOOL_LOCKEDFUNCTION_H

#include "Diagnostics.h"
#include "GuardText.h"
#include "LockInventory.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Stmt.h"

#include <optional>
#include <string>
#include <vector>

namespace distlock {
namespace weave {

struct LockedFunction {
  PastedText LockArguments;
  std::vector<std::string> KeyExpressions;
  /// The same keys as written: parameter, position and path.
  std::vector<KeyRecord> Keys;
  BusyReturn Busy;
  /// Set for an Asio coroutine, whose guard awaits its locks.
  std::optional<CoroutineReturn> Coroutine;
  /// The body's '{'; the guard goes right after it.
  clang::SourceLocation BodyBrace;
  /// The statements the guard opens: the body, or a function-try-block's try
  /// block.
  const clang::CompoundStmt *Body = nullptr;
};

/// The value type of an asio::awaitable<T> or boost::asio::awaitable<T>, as
/// written where \p Returned spells it; std::nullopt for any other type.
std::optional<CoroutineReturn>
asioAwaitableOf(clang::QualType Returned, const clang::ASTContext &Context);

/// std::nullopt after reporting why \p Definition cannot be woven.
std::optional<LockedFunction>
analyzeLockedFunction(const clang::FunctionDecl &Definition,
                      const clang::AnnotateAttr &Lock, Diagnostics &Diags);

} // namespace weave
} // namespace distlock

#endif
