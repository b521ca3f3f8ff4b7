// SPDX-License-Identifier: Apache-2.0
//===- Paths.h - File paths as distlock-weave compares them ---------------===//

#ifndef DISTLOCK_TOOL_PATHS_H
#define DISTLOCK_TOOL_PATHS_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace distlock {
namespace weave {

/// \p Path made absolute against the working directory, without "." and ".."
/// components, so that one file has one spelling. Empty stays empty.
std::string absolutePath(llvm::StringRef Path);

/// The path of \p Path below \p Root, or std::nullopt outside it (or when
/// \p Root is empty or \p Path is \p Root itself).
std::optional<std::string> relativeTo(llvm::StringRef Path,
                                      llvm::StringRef Root);

} // namespace weave
} // namespace distlock

#endif
