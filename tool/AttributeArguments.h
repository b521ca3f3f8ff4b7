// SPDX-License-Identifier: Apache-2.0
//===- AttributeArguments.h - Reading distlock attribute arguments --------===//
//
// Clang 16 parses plugin-registered C++11 attributes but skips their arguments,
// so the tool reads them itself: from the attribute's scope name, the tokens
// `distlock :: <name>` and, if present, one balanced parenthesized list.
//
//===----------------------------------------------------------------------===//

#ifndef DISTLOCK_TOOL_ATTRIBUTEARGUMENTS_H
#define DISTLOCK_TOOL_ATTRIBUTEARGUMENTS_H

#include "clang/Basic/LangOptions.h"
#include "clang/Basic/SourceLocation.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace distlock {
namespace weave {

struct AttributeSpelling {
  /// From the scope name to the closing parenthesis (or the attribute name).
  clang::SourceRange Whole;
  /// The text between the parentheses; absent without parentheses.
  std::optional<clang::SourceRange> Arguments;
  std::string ArgumentText;
};

/// Reads `distlock::Name(...)` starting at \p ScopeLoc, a file location.
/// Returns std::nullopt (with \p Problem set) when the tokens there are not
/// that or the parentheses do not balance before the end of the file.
std::optional<AttributeSpelling> readAttributeSpelling(
    const clang::SourceManager &SM, const clang::LangOptions &LangOpts,
    clang::SourceLocation ScopeLoc, llvm::StringRef Name, std::string &Problem);

} // namespace weave
} // namespace distlock

#endif
