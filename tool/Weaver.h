// SPDX-License-Identifier: Apache-2.0
//===- Weaver.h - Weaving lock guards into one translation unit -----------===//
//
// Finds every definition whose declarations carry [[distlock::lock]], checks
// every distlock attribute of the translation unit, inserts the guards and
// blanks the attributes out, all in a Rewriter over the TU's files.
//
//===----------------------------------------------------------------------===//

#ifndef DISTLOCK_TOOL_WEAVER_H
#define DISTLOCK_TOOL_WEAVER_H

#include "LockInventory.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/SourceLocation.h"
#include "clang/Rewrite/Core/Rewriter.h"
#include "llvm/ADT/DenseMap.h"

#include <set>
#include <string>

namespace distlock {
namespace weave {

struct WeaveSummary {
  unsigned WovenFunctions = 0;
  /// The files that received a guard, each with its first guard's '{'.
  llvm::DenseMap<clang::FileID, clang::SourceLocation> GuardedFiles;
  /// The files with a woven coroutine, each with the headers its guards await
  /// through (distlock/asio.h, distlock/boost_asio.h).
  llvm::DenseMap<clang::FileID, std::set<std::string>> AwaitingFiles;
  /// Each woven function, for the lock inventory.
  std::vector<LockRecord> Locks;
};

class Weaver : public clang::ASTConsumer {
public:
  Weaver(clang::Rewriter &Rewrite, WeaveSummary &Summary)
      : Rewrite(Rewrite), Summary(Summary) {}

  void HandleTranslationUnit(clang::ASTContext &Context) override;

private:
  clang::Rewriter &Rewrite;
  WeaveSummary &Summary;
};

} // namespace weave
} // namespace distlock

#endif
