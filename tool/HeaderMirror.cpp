// SPDX-License-Identifier: Apache-2.0
//===- HeaderMirror.cpp - The woven header tree ---------------------------===//

#include "HeaderMirror.h"

#include "Paths.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

using namespace clang;

namespace distlock {
namespace weave {

std::optional<std::string>
HeaderMirror::mirroredPath(llvm::StringRef Path) const {
  if (relativeTo(Path, WovenRoot))
    return std::nullopt;
  auto Relative = relativeTo(Path, SourceRoot);
  if (!Relative)
    return std::nullopt;
  llvm::SmallString<256> Mirrored = llvm::StringRef(WovenRoot);
  llvm::sys::path::append(Mirrored, *Relative);
  return std::string(Mirrored);
}

void HeaderMirror::checkGuardedHeaders(const SourceManager &SM,
                                       const WeaveSummary &Summary,
                                       Diagnostics &Diags) const {
  for (const auto &[ID, Brace] : Summary.GuardedFiles) {
    if (ID == SM.getMainFileID())
      continue;
    auto Entry = SM.getFileEntryRefForID(ID);
    std::string Path = Entry ? absolutePath(Entry->getName()) : "";
    if (mirroredPath(Path))
      continue;
    Diags.error(Brace,
                "this locked function is defined in '" + Path +
                    "', which distlock-weave can weave only as a copy under "
                    "--woven-root: pass --source-root with a directory "
                    "holding the header (distlock_weave() in CMake does), or "
                    "define the function in a source file");
  }
}

std::set<std::string>
HeaderMirror::headersToCopy(const SourceManager &SM, const Rewriter &Rewrite,
                            const std::vector<ReadFile> &Files,
                            const std::vector<Inclusion> &Inclusions) const {
  std::set<std::string> Copied;
  for (const ReadFile &File : Files)
    if (!llvm::is_contained(File.IDs, SM.getMainFileID()) &&
        mirroredPath(File.Path) && llvm::any_of(File.IDs, [&](FileID ID) {
          return Rewrite.getRewriteBufferFor(ID) != nullptr;
        }))
      Copied.insert(File.Path);
  for (bool Grew = true; Grew;) {
    Grew = false;
    for (const Inclusion &Include : Inclusions)
      if (Copied.count(Include.IncludedPath) &&
          Include.IncludingID != SM.getMainFileID() &&
          mirroredPath(Include.IncludingPath))
        Grew |= Copied.insert(Include.IncludingPath).second;
  }
  return Copied;
}

void HeaderMirror::redirectInclusions(
    const SourceManager &SM, Rewriter &Rewrite,
    const std::vector<Inclusion> &Inclusions,
    const std::set<std::string> &Copied) const {
  for (const Inclusion &Include : Inclusions) {
    bool InWovenFile = Include.IncludingID == SM.getMainFileID() ||
                       Copied.count(Include.IncludingPath);
    if (!InWovenFile || Include.SystemHeader)
      continue;
    std::string Target = Copied.count(Include.IncludedPath)
                             ? *mirroredPath(Include.IncludedPath)
                             : Include.IncludedPath;
    Rewrite.ReplaceText(Include.FileNameRange, "\"" + Target + "\"");
  }
}

} // namespace weave
} // namespace distlock
