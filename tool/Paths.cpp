// SPDX-License-Identifier: Apache-2.0
//===- Paths.cpp - File paths as distlock-weave compares them -------------===//

#include "Paths.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace distlock {
namespace weave {

std::string absolutePath(llvm::StringRef Path) {
  if (Path.empty())
    return "";
  llvm::SmallString<256> Absolute = Path;
  llvm::sys::fs::make_absolute(Absolute);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
  return std::string(Absolute);
}

std::optional<std::string> relativeTo(llvm::StringRef Path,
                                      llvm::StringRef Root) {
  if (Root.empty() || !Path.consume_front(Root.rtrim('/')))
    return std::nullopt;
  // "/srcs/a.h" is not under "/src": the root must end at a separator.
  if (Path.empty() || !llvm::sys::path::is_separator(Path.front()))
    return std::nullopt;
  llvm::StringRef Relative = Path.ltrim('/');
  if (Relative.empty())
    return std::nullopt;
  return Relative.str();
}

} // namespace weave
} // namespace distlock
