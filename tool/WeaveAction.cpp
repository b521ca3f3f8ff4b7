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
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <set>

using namespace clang;

namespace distlock {
namespace weave {

namespace {

using FileList = llvm::SetVector<std::string, std::vector<std::string>,
                                 std::set<std::string>>;

/// Records the files the translation unit reads, outside system headers, as
/// `-MMD` would: what the depfile lists.
class DependencyCollector : public PPCallbacks {
public:
  DependencyCollector(const SourceManager &SM,
                      FileList &Files)
      : SM(SM), Files(Files) {}

  void FileChanged(SourceLocation Loc, FileChangeReason Reason,
                   SrcMgr::CharacteristicKind FileType,
                   FileID) override {
    if (Reason != EnterFile || isSystem(FileType))
      return;
    if (auto Entry = SM.getFileEntryRefForID(SM.getFileID(Loc)))
      Files.insert(absolute(Entry->getName()));
  }

private:
  static std::string absolute(llvm::StringRef Path) {
    llvm::SmallString<256> Absolute = Path;
    llvm::sys::fs::make_absolute(Absolute);
    llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
    return std::string(Absolute);
  }

  const SourceManager &SM;
  FileList &Files;
};

class WeaveAction : public ASTFrontendAction {
public:
  explicit WeaveAction(const WeaveOptions &Options) : Options(Options) {}

protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    Rewrite.setSourceMgr(CI.getSourceManager(), CI.getLangOpts());
    CI.getPreprocessor().addPPCallbacks(std::make_unique<DependencyCollector>(
        CI.getSourceManager(), Dependencies));
    return std::make_unique<Weaver>(Rewrite, Summary);
  }

  void EndSourceFileAction() override {
    CompilerInstance &CI = getCompilerInstance();
    Diagnostics Diags(CI.getDiagnostics());
    if (Diags.hasErrors()) {
      llvm::sys::fs::remove(Options.OutputPath);
      return;
    }
    const SourceManager &SM = CI.getSourceManager();
    FileID Main = SM.getMainFileID();
    std::string Body;
    if (const RewriteBuffer *Buffer = Rewrite.getRewriteBufferFor(Main))
      Body = std::string(Buffer->begin(), Buffer->end());
    else
      Body = SM.getBufferData(Main).str();

    llvm::SmallString<256> Source = getCurrentFile();
    llvm::sys::fs::make_absolute(Source);
    report(writeFileAtomically(
        Options.OutputPath,
        wovenSource(Source, Body, Summary.WovenFunctions > 0)));
    if (!Options.DepfilePath.empty())
      report(writeFileAtomically(
          Options.DepfilePath,
          depfileText(Options.OutputPath, Dependencies.getArrayRef())));
  }

private:
  void report(llvm::Error Failure) {
    llvm::handleAllErrors(std::move(Failure), [&](const llvm::ErrorInfoBase &E) {
      DiagnosticsEngine &Engine = getCompilerInstance().getDiagnostics();
      Engine.Report(Engine.getCustomDiagID(DiagnosticsEngine::Error, "%0"))
          << E.message();
    });
  }

  WeaveOptions Options;
  Rewriter Rewrite;
  WeaveSummary Summary;
  FileList Dependencies;
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
