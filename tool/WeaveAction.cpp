//===- WeaveAction.cpp - The frontend action of distlock-weave ------------===//

#include "WeaveAction.h"

#include "Diagnostics.h"
#include "Weaver.h"
#include "WovenOutput.h"

#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Rewrite/Core/Rewriter.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <set>

using namespace clang;

namespace distlock {
namespace weave {

namespace {

std::string absolutePath(llvm::StringRef Path) {
  llvm::SmallString<256> Absolute = Path;
  llvm::sys::fs::make_absolute(Absolute);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
  return std::string(Absolute);
}

/// The path of \p Path below \p Root, or std::nullopt outside it.
std::optional<std::string> relativeTo(llvm::StringRef Path,
                                      llvm::StringRef Root) {
  if (Root.empty())
    return std::nullopt;
  llvm::SmallString<256> Rest = Path;
  if (!llvm::sys::path::replace_path_prefix(Rest, Root, ""))
    return std::nullopt;
  llvm::StringRef Relative = llvm::sys::path::relative_path(Rest);
  if (Relative.empty())
    return std::nullopt;
  return Relative.str();
}

/// A file the translation unit read, outside system headers, with every
/// FileID it was entered under (a header included twice has two).
struct ReadFile {
  std::string Path;
  llvm::SmallVector<FileID, 1> IDs;
};

/// An #include directive: where its file name is written, and the file it
/// found.
struct Inclusion {
  CharSourceRange FileNameRange;
  bool SystemHeader;
  FileID IncludingID;
  std::string IncludingPath;
  std::string IncludedPath;
};

/// Records what the translation unit reads, as `-MMD` would (what the depfile
/// lists and what the woven tree mirrors), and the #include directives.
class ReadFiles : public PPCallbacks {
public:
  ReadFiles(const SourceManager &SM, std::vector<ReadFile> &Files,
            std::vector<Inclusion> &Inclusions)
      : SM(SM), Files(Files), Inclusions(Inclusions) {}

  void InclusionDirective(SourceLocation, const Token &, llvm::StringRef, bool,
                          CharSourceRange FileNameRange,
                          OptionalFileEntryRef File, llvm::StringRef,
                          llvm::StringRef, const Module *,
                          SrcMgr::CharacteristicKind FileType) override {
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

  void FileChanged(SourceLocation Loc, FileChangeReason Reason,
                   SrcMgr::CharacteristicKind FileType, FileID) override {
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

private:
  const SourceManager &SM;
  std::vector<ReadFile> &Files;
  std::vector<Inclusion> &Inclusions;
  llvm::StringMap<size_t> Index;
};

class WeaveAction : public ASTFrontendAction {
public:
  explicit WeaveAction(const WeaveOptions &Options) : Options(Options) {}

protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    Rewrite.setSourceMgr(CI.getSourceManager(), CI.getLangOpts());
    CI.getPreprocessor().addPPCallbacks(
        std::make_unique<ReadFiles>(CI.getSourceManager(), Files, Inclusions));
    return std::make_unique<Weaver>(Rewrite, Summary);
  }

  void EndSourceFileAction() override {
    CompilerInstance &CI = getCompilerInstance();
    Diagnostics Diags(CI.getDiagnostics());
    checkGuardedHeadersCanBeMirrored(Diags);
    if (Diags.hasErrors()) {
      llvm::sys::fs::remove(Options.OutputPath);
      return;
    }
    const SourceManager &SM = CI.getSourceManager();
    FileID Main = SM.getMainFileID();
    const std::set<std::string> Copied = headersToCopy();
    redirectInclusions(Copied);
    for (const ReadFile &File : Files)
      if (Copied.count(File.Path))
        writeFile(*mirroredPath(File.Path), wovenFile(File));
    std::string Source = absolutePath(getCurrentFile());
    writeFile(Options.OutputPath,
              wovenSource(Source, text(Main), Summary.GuardedFiles.count(Main)),
              WriteMode::Always);
    if (!Options.DepfilePath.empty()) {
      std::vector<std::string> Paths;
      for (const ReadFile &File : Files)
        Paths.push_back(File.Path);
      writeFile(Options.DepfilePath, depfileText(Options.OutputPath, Paths),
                WriteMode::Always);
    }
  }

private:
  /// Where the woven tree holds \p Path, if it is a header under the source
  /// root (and not itself in the woven tree).
  std::optional<std::string> mirroredPath(llvm::StringRef Path) const {
    if (relativeTo(Path, Options.WovenRoot))
      return std::nullopt;
    auto Relative = relativeTo(Path, Options.SourceRoot);
    if (!Relative)
      return std::nullopt;
    llvm::SmallString<256> Mirrored = llvm::StringRef(Options.WovenRoot);
    llvm::sys::path::append(Mirrored, *Relative);
    return std::string(Mirrored);
  }

  /// The headers the woven tree needs: those the weaver changed, and those
  /// that include one of them (so that their #include can name the copy).
  /// Every other header is read from where it is, so no header is ever read
  /// both as itself and as its copy.
  std::set<std::string> headersToCopy() const {
    const SourceManager &SM = getCompilerInstance().getSourceManager();
    std::set<std::string> Copied;
    for (const ReadFile &File : Files)
      if (!llvm::is_contained(File.IDs, SM.getMainFileID()) &&
          mirroredPath(File.Path) &&
          llvm::any_of(File.IDs, [&](FileID ID) {
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

  /// In the files the woven tree holds, every #include of a user header names
  /// it by absolute path: the copy, for a copied header, else the original.
  /// The compiler then finds the same files as for the original source,
  /// although the woven file sits in another directory.
  void redirectInclusions(const std::set<std::string> &Copied) {
    const SourceManager &SM = getCompilerInstance().getSourceManager();
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

  void checkGuardedHeadersCanBeMirrored(Diagnostics &Diags) {
    const SourceManager &SM = getCompilerInstance().getSourceManager();
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

  std::string text(FileID ID) const {
    if (const RewriteBuffer *Buffer = Rewrite.getRewriteBufferFor(ID))
      return std::string(Buffer->begin(), Buffer->end());
    return getCompilerInstance().getSourceManager().getBufferData(ID).str();
  }

  /// A header as the woven tree holds it: from the inclusion that was woven,
  /// if any was (a later inclusion behind an include guard was not parsed).
  std::string wovenFile(const ReadFile &File) const {
    FileID Chosen = File.IDs.front();
    for (FileID ID : File.IDs)
      if (Rewrite.getRewriteBufferFor(ID))
        Chosen = ID;
    return wovenSource(File.Path, text(Chosen),
                       Summary.GuardedFiles.count(Chosen));
  }

  void writeFile(llvm::StringRef Path, llvm::StringRef Text,
                 WriteMode Mode = WriteMode::IfChanged) {
    llvm::handleAllErrors(
        writeFileAtomically(Path, Text, Mode), [&](const llvm::ErrorInfoBase &E) {
          DiagnosticsEngine &Engine = getCompilerInstance().getDiagnostics();
          Engine.Report(Engine.getCustomDiagID(DiagnosticsEngine::Error, "%0"))
              << E.message();
        });
  }

  WeaveOptions Options;
  Rewriter Rewrite;
  WeaveSummary Summary;
  std::vector<ReadFile> Files;
  std::vector<Inclusion> Inclusions;
};

class WeaveActionFactory : public tooling::FrontendActionFactory {
public:
  explicit WeaveActionFactory(const WeaveOptions &Options) : Options(Options) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<WeaveAction>(Options);
  }

private:
  WeaveOptions Options;
};

} // namespace

std::unique_ptr<tooling::FrontendActionFactory>
newWeaveActionFactory(const WeaveOptions &Options) {
  return std::make_unique<WeaveActionFactory>(Options);
}

} // namespace weave
} // namespace distlock
