// SPDX-License-Identifier: Apache-2.0
//===- ReadFilesRecorder.h - What a translation unit reads ----------------===//
//
// Records the files a translation unit reads, as `-MMD` would (what the
// depfile lists and what the woven header tree mirrors), and its #include
// directives (what the woven files redirect).
//
//===----------------------------------------------------------------------===//

#ifndef DISTLOCK_TOOL_READFILESRECORDER_H
#define DISTLOCK_TOOL_READFILESRECORDER_H

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/PPCallbacks.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace distlock {
namespace weave {

/// A file the translation unit read, outside system headers, with every
/// FileID it was entered under (a header included twice has two).
struct ReadFile {
  std::string Path;
  llvm::SmallVector<clang::FileID, 1> IDs;
};

/// An #include directive: where its file name is written, and the file it
/// found.
struct Inclusion {
  clang::CharSourceRange FileNameRange;
  bool SystemHeader;
  clang::FileID IncludingID;
  std::string IncludingPath;
  std::string IncludedPath;
};

class ReadFilesRecorder : public clang::PPCallbacks {
public:
  ReadFilesRecorder(const clang::SourceManager &SM,
                    std::vector<ReadFile> &Files,
                    std::vector<Inclusion> &Inclusions)
      : SM(SM), Files(Files), Inclusions(Inclusions) {}

  void InclusionDirective(clang::SourceLocation, const clang::Token &,
                          llvm::StringRef, bool,
                          clang::CharSourceRange FileNameRange,
                          clang::OptionalFileEntryRef File, llvm::StringRef,
                          llvm::StringRef, const clang::Module *,
                          clang::SrcMgr::CharacteristicKind FileType) override;

  void FileChanged(clang::SourceLocation Loc, FileChangeReason Reason,
                   clang::SrcMgr::CharacteristicKind FileType,
                   clang::FileID) override;

private:
  const clang::SourceManager &SM;
  std::vector<ReadFile> &Files;
  std::vector<Inclusion> &Inclusions;
  llvm::StringMap<size_t> Index;
};

} // namespace weave
} // namespace distlock

#endif
