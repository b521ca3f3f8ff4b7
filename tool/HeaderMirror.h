// SPDX-License-Identifier: Apache-2.0
//===- HeaderMirror.h - The woven header tree -----------------------------===//
//
// A locked function defined in a header is woven into a copy of the header
// under --woven-root, at the path it has under --source-root; the build
// searches the woven root first. Only the headers the weaver changed, and
// those that include one of them, are copied: every other header is read from
// where it is, so no header is ever read both as itself and as its copy.
//
//===----------------------------------------------------------------------===//

#ifndef DISTLOCK_TOOL_HEADERMIRROR_H
#define DISTLOCK_TOOL_HEADERMIRROR_H

#include "Diagnostics.h"
#include "ReadFilesRecorder.h"
#include "Weaver.h"

#include "clang/Rewrite/Core/Rewriter.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace distlock {
namespace weave {

class HeaderMirror {
public:
  /// Both roots absolute, or both empty (no header can then be woven).
  HeaderMirror(std::string SourceRoot, std::string WovenRoot)
      : SourceRoot(std::move(SourceRoot)), WovenRoot(std::move(WovenRoot)) {}

  /// Where the woven tree holds \p Path, if it is a file under the source
  /// root (and not itself in the woven tree).
  std::optional<std::string> mirroredPath(llvm::StringRef Path) const;

  /// Reports, at its '{', each locked function in a header that has no place
  /// in the woven tree.
  void checkGuardedHeaders(const clang::SourceManager &SM,
                           const WeaveSummary &Summary,
                           Diagnostics &Diags) const;

  /// The headers to copy: those the weaver changed, and those that include
  /// one of them (so that their #include can name the copy).
  std::set<std::string>
  headersToCopy(const clang::SourceManager &SM, const clang::Rewriter &Rewrite,
                const std::vector<ReadFile> &Files,
                const std::vector<Inclusion> &Inclusions) const;

  /// In the files the woven tree holds, and the woven source, every #include
  /// of a user header names it by absolute path: the copy, for a copied
  /// header, else the original. The compiler then finds the same files as for
  /// the original source, although the woven file sits in another directory.
  void redirectInclusions(const clang::SourceManager &SM,
                          clang::Rewriter &Rewrite,
                          const std::vector<Inclusion> &Inclusions,
                          const std::set<std::string> &Copied) const;

private:
  std::string SourceRoot;
  std::string WovenRoot;
};

} // namespace weave
} // namespace distlock

#endif
