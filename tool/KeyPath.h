// SPDX-License-Identifier: Apache-2.0
//===- KeyPath.h - Field paths of [[distlock::key("path")]] ---------------===//
//
// A key path names what of a parameter keys the lock: "id", "customer.id",
// "id()" (a const member function without arguments). The path is checked
// against the parameter's type and turned into the member access the guard
// passes to distlock::to_key.
//
//===----------------------------------------------------------------------===//

#ifndef DISTLOCK_TOOL_KEYPATH_H
#define DISTLOCK_TOOL_KEYPATH_H

#include "clang/AST/Type.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace distlock {
namespace weave {

struct KeyPathSegment {
  std::string Name;
  bool IsCall = false;
};

/// Splits "a.b().c" into segments; std::nullopt if it is not of that form.
std::optional<llvm::SmallVector<KeyPathSegment, 4>>
parseKeyPath(llvm::StringRef Path);

/// Resolves \p Segments against \p ParamType and returns the expression that
/// reads the key from \p ParamName ("order.customer.id", "order->id()").
/// On a path that does not fit the type, returns std::nullopt with \p Problem
/// saying why. Members of dependent types are taken as written.
std::optional<std::string>
keyExpression(llvm::StringRef ParamName, clang::QualType ParamType,
              llvm::ArrayRef<KeyPathSegment> Segments, std::string &Problem);

} // namespace weave
} // namespace distlock

#endif
