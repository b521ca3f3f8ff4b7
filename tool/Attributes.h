// SPDX-License-Identifier: Apache-2.0
//===- Attributes.h - The distlock attributes as the AST records them -----===//
//
// The attribute handlers (Attributes.cpp, registered with Clang's
// ParsedAttrInfoRegistry) record each distlock attribute as an AnnotateAttr
// whose location is the attribute's scope name, so the weaver can find the
// attributes on any declaration and read their arguments from the source.
//
//===----------------------------------------------------------------------===//

#ifndef DISTLOCK_TOOL_ATTRIBUTES_H
#define DISTLOCK_TOOL_ATTRIBUTES_H

#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "llvm/ADT/SmallVector.h"

namespace distlock {
namespace weave {

inline constexpr llvm::StringLiteral LockAnnotation = "distlock::lock";
inline constexpr llvm::StringLiteral KeyAnnotation = "distlock::key";

/// The distlock attributes of kind \p Annotation written on \p D itself.
llvm::SmallVector<const clang::AnnotateAttr *, 1>
distlockAttributes(const clang::Decl *D, llvm::StringRef Annotation);

/// Those of them written on \p D itself, not inherited from an earlier
/// declaration.
llvm::SmallVector<const clang::AnnotateAttr *, 1>
writtenAttributes(const clang::Decl *D, llvm::StringRef Annotation);

/// The distinct lock attributes over all declarations of \p FD, first first.
llvm::SmallVector<const clang::AnnotateAttr *, 1>
lockAttributesOf(const clang::FunctionDecl &FD);

} // namespace weave
} // namespace distlock

#endif
