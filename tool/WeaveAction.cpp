// SPDX-License-Identifier: Apache-2.0
//===- WeaveAction.cpp - The frontend action of distlock-weave ------------===//

#include "WeaveAction.h"

#include "Diagnostics.h"
#include "HeaderMirror.h"
#include "LockInventory.h"
#include "Paths.h"
#include "ReadFilesRecorder.h"
#include "Weaver.h"
#include "WovenOutput.h"

#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Rewrite/Core/Rewriter.h"
#include "llvm/Support/FileSystem.h"

#include <set>

using namespace clang;

namespace distlock {
namespace weave {

namespace {

class WeaveAction : public ASTFrontendAction {
public:
  explicit WeaveAction(const WeaveOptions &Options)
      : Options(Options), Mirror(Options.SourceRoot, Options.WovenRoot) {}

protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    Rewrite.setSourceMgr(CI.getSourceManager(), CI.getLangOpts());
    CI.getPreprocessor().addPPCallbacks(std::make_unique<ReadFilesRecorder>(
        CI.getSourceManager(), Files, Inclusions));
    return std::make_unique<Weaver>(Rewrite, Summary);
  }

  /// Writes the woven files after the parse, before EndSourceFile: the
  /// diagnostic printer can show a source location only until then.
  void ExecuteAction() override {
    ASTFrontendAction::ExecuteAction();
    CompilerInstance &CI = getCompilerInstance();
    const SourceManager &SM = CI.getSourceManager();
    Diagnostics Diags(CI.getDiagnostics());
    Mirror.checkGuardedHeaders(SM, Summary, Diags);
    if (Diags.hasErrors()) {
      llvm::sys::fs::remove(Options.OutputPath);
      return;
    }
    FileID Main = SM.getMainFileID();
    const std::set<std::string> Copied =
        Mirror.headersToCopy(SM, Rewrite, Files, Inclusions);
    Mirror.redirectInclusions(SM, Rewrite, Inclusions, Copied);
    for (const ReadFile &File : Files)
      if (Copied.count(File.Path))
        writeFile(*Mirror.mirroredPath(File.Path), wovenFile(File));
    if (!Options.LocksPath.empty())
      writeFile(Options.LocksPath, inventoryText(Summary.Locks),
                WriteMode::Always);
    if (!Options.DepfilePath.empty()) {
      std::vector<std::string> Paths;
      Paths.reserve(Files.size());
      for (const ReadFile &File : Files)
        Paths.push_back(File.Path);
      writeFile(Options.DepfilePath, depfileText(Options.OutputPath, Paths),
                WriteMode::Always);
    }
    // The woven source last, and only when everything else was written: the
    // build takes its presence for a finished step, and would not run the
    // tool again for a missing depfile or inventory.
    if (Diags.hasErrors()) {
      llvm::sys::fs::remove(Options.OutputPath);
      return;
    }
    std::string Source = absolutePath(getCurrentFile());
    writeFile(Options.OutputPath,
              wovenSource(Source, text(Main), runtimeHeaders(Main)),
              WriteMode::Always);
  }

private:
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
    return wovenSource(File.Path, text(Chosen), runtimeHeaders(Chosen));
  }

  /// What a woven file includes: the contract, when it has a guard, and the
  /// Asio headers its coroutines' guards await through.
  std::vector<std::string> runtimeHeaders(FileID ID) const {
    std::vector<std::string> Headers;
    if (!Summary.GuardedFiles.count(ID))
      return Headers;
    Headers.push_back(WovenRuntimeHeader);
    if (auto Awaiting = Summary.AwaitingFiles.find(ID);
        Awaiting != Summary.AwaitingFiles.end())
      Headers.insert(Headers.end(), Awaiting->second.begin(),
                     Awaiting->second.end());
    return Headers;
  }

  void writeFile(llvm::StringRef Path, llvm::StringRef Text,
                 WriteMode Mode = WriteMode::IfChanged) {
    llvm::handleAllErrors(
        writeFileAtomically(Path, Text, Mode),
        [&](const llvm::ErrorInfoBase &E) {
          DiagnosticsEngine &Engine = getCompilerInstance().getDiagnostics();
          Engine.Report(Engine.getCustomDiagID(DiagnosticsEngine::Error, "%0"))
              << E.message();
        });
  }

  WeaveOptions Options;
  HeaderMirror Mirror;
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
