// SPDX-License-Identifier: Apache-2.0
//===- ReadFilesRecorder.cpp - What a translation unit reads --------------===//

#include "ReadFilesRecorder.h"

#include "Paths.h"

using namespace clang;

namespace distlock {
namespace weave {

void ReadFilesRecorder::InclusionDirective(
    SourceLocation, const Token &, llvm::StringRef, bool,
    CharSourceRange FileNameRange, OptionalFileEntryRef File, llvm::StringRef,
    llvm::StringRef, const Module *, SrcMgr::CharacteristicKind FileType) {
  if (!File || !FileNameRange.getBegin().isFileID())
    return;
  FileID Including = SM.getFileID(FileNameRange.getBegin());
  auto IncludingEntry = SM.getFileEntryRefForID(Including);
  if (!IncludingEntry)
    return;
  Inclusions.push_back({FileNameRange, isSystem(FileType), Including,
                        absolutePath(IncludingEntry->getName()),
                        absolutePath(File->getName())});
}

void ReadFilesRecorder::FileChanged(SourceLocation Loc, FileChangeReason Reason,
                                    SrcMgr::CharacteristicKind FileType,
                                    FileID) {
  if (Reason != EnterFile || isSystem(FileType))
    return;
  FileID ID = SM.getFileID(Loc);
  auto Entry = SM.getFileEntryRefForID(ID);
  if (!Entry)
    return;
  std::string Path = absolutePath(Entry->getName());
  auto [Position, New] = Index.try_emplace(Path, Files.size());
  if (New)
    Files.push_back({Path, {}});
  Files[Position->second].IDs.push_back(ID);
}

} // namespace weave
} // namespace distlock
