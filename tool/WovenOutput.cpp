// SPDX-License-Identifier: Apache-2.0
//===- WovenOutput.cpp - Writing the woven source and its depfile ---------===//

#include "WovenOutput.h"

#include "GuardText.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace distlock {
namespace weave {

llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Text,
                                WriteMode Mode) {
  if (Mode == WriteMode::IfChanged)
    if (auto Existing =
            llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false))
      if ((*Existing)->getBuffer() == Text)
        return llvm::Error::success();
  llvm::SmallString<256> Directory = Path;
  llvm::sys::path::remove_filename(Directory);
  if (!Directory.empty())
    if (std::error_code EC = llvm::sys::fs::create_directories(Directory))
      return llvm::createStringError(EC, "cannot create directory '%s': %s",
                                     Directory.c_str(), EC.message().c_str());
  llvm::SmallString<256> Temporary;
  int FD = -1;
  if (std::error_code EC =
          llvm::sys::fs::createUniqueFile(Path + ".tmp-%%%%%%", FD, Temporary))
    return llvm::createStringError(EC, "cannot write next to '%s': %s",
                                   Path.str().c_str(), EC.message().c_str());
  {
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Text;
    OS.close();
    if (OS.has_error()) {
      llvm::sys::fs::remove(Temporary);
      return llvm::createStringError(OS.error(), "cannot write '%s': %s",
                                     Temporary.c_str(),
                                     OS.error().message().c_str());
    }
  }
  if (std::error_code EC = llvm::sys::fs::rename(Temporary, Path)) {
    llvm::sys::fs::remove(Temporary);
    return llvm::createStringError(EC, "cannot write '%s': %s",
                                   Path.str().c_str(), EC.message().c_str());
  }
  return llvm::Error::success();
}

std::string wovenSource(llvm::StringRef SourcePath, llvm::StringRef Body,
                        llvm::ArrayRef<std::string> RuntimeHeaders) {
  std::string Text;
  for (const std::string &Header : RuntimeHeaders)
    Text += "#include <" + Header + ">\n";
  Text += lineDirective(1, SourcePath);
  Text += "\n";
  Text += Body;
  return Text;
}

namespace {

void appendEscaped(std::string &Out, llvm::StringRef Path) {
  for (char C : Path) {
    if (C == ' ' || C == '#')
      Out += '\\';
    else if (C == '$')
      Out += '$';
    Out += C;
  }
}

} // namespace

std::string depfileText(llvm::StringRef Target,
                        llvm::ArrayRef<std::string> Dependencies) {
  std::string Text;
  appendEscaped(Text, Target);
  Text += ":";
  for (const std::string &Dependency : Dependencies) {
    Text += " \\\n  ";
    appendEscaped(Text, Dependency);
  }
  Text += "\n";
  return Text;
}

} // namespace weave
} // namespace distlock
