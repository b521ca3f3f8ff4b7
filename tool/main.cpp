// SPDX-License-Identifier: Apache-2.0
//===- main.cpp - distlock-weave ------------------------------------------===//
//
// distlock-weave SRC -o OUT [--depfile D] [--locks-out L]
//                [--source-root S --woven-root W] -- <compile flags>
// distlock-weave SRC -o OUT [...] -p <build dir> [--flags-of FILE]
//
// Writes OUT: SRC with a lock guard woven into every function marked
// [[distlock::lock(...)]], every line at its number.
//
//===----------------------------------------------------------------------===//

#include "BuildFlags.h"
#include "ForceLinker.h"
#include "Paths.h"
#include "WeaveAction.h"

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "llvm/Support/CommandLine.h"

#include <algorithm>
#include <vector>

using namespace clang::tooling;

static llvm::cl::OptionCategory WeaveCategory("distlock-weave options");

static llvm::cl::opt<std::string>
    OutputPath("o", llvm::cl::desc("Write the woven source to <file>"),
               llvm::cl::value_desc("file"), llvm::cl::Required,
               llvm::cl::cat(WeaveCategory));

static llvm::cl::opt<std::string> DepfilePath(
    "depfile",
    llvm::cl::desc("Write a make-style depfile listing the files read"),
    llvm::cl::value_desc("file"), llvm::cl::cat(WeaveCategory));

static llvm::cl::opt<std::string> LocksPath(
    "locks-out",
    llvm::cl::desc("Write the lock inventory of the woven functions (JSON, "
                   "for distlock-lock-order) to <file>"),
    llvm::cl::value_desc("file"), llvm::cl::cat(WeaveCategory));

static llvm::cl::opt<std::string> SourceRoot(
    "source-root",
    llvm::cl::desc("Copy the headers under <dir> that have locked functions "
                   "or distlock attributes, and the headers that include them, "
                   "woven, to --woven-root"),
    llvm::cl::value_desc("dir"), llvm::cl::cat(WeaveCategory));

static llvm::cl::opt<std::string> WovenRoot(
    "woven-root",
    llvm::cl::desc("Where the woven copies of --source-root's headers go, at "
                   "their paths relative to it; the woven files include the "
                   "copies by absolute path"),
    llvm::cl::value_desc("dir"), llvm::cl::cat(WeaveCategory));

static llvm::cl::opt<std::string> FlagsOf(
    "flags-of",
    llvm::cl::desc("Parse SRC with the language and preprocessor flags that "
                   "the compilation database (-p) holds for <file>"),
    llvm::cl::value_desc("file"), llvm::cl::cat(WeaveCategory));

static llvm::cl::extrahelp MoreHelp(
    "\nThe woven source keeps every line of SRC at its number: compile it in "
    "place of SRC.\nExit codes: 0 woven; 1 SRC not woven (an error reported as "
    "file:line:col: error: ..., or SRC unreadable; nothing written); 2 bad "
    "usage.\nSee "
    "docs/annotations.md for the attributes and their diagnostics.\n");

/// Whether \p Compilations is what CommonOptionsParser falls back to when the
/// command line gave no flags (no "--") and no compilation database was found:
/// the source alone, in ".", which parses it without its include paths and
/// defines.
static bool isFlaglessFallback(const CompilationDatabase &Compilations,
                               llvm::StringRef Source) {
  std::vector<CompileCommand> Commands =
      Compilations.getCompileCommands(Source);
  return Commands.size() == 1 && Commands[0].Directory == "." &&
         Commands[0].CommandLine.size() == 2;
}

static bool hasFlagSeparator(int argc, const char **argv) {
  return std::any_of(argv + 1, argv + argc, [](const char *Arg) {
    return llvm::StringRef(Arg) == "--";
  });
}

int main(int argc, const char **argv) {
  auto Parsed = CommonOptionsParser::create(argc, argv, WeaveCategory,
                                            llvm::cl::Required);
  if (!Parsed) {
    // The parser's messages begin with the program's name, and some went to
    // stderr already: what is left may be empty.
    std::string Message = llvm::toString(Parsed.takeError());
    if (!llvm::StringRef(Message).trim().empty())
      llvm::errs() << llvm::StringRef(Message).trim() << "\n";
    llvm::errs() << "usage: distlock-weave SRC -o OUT [options] -- <compile "
                    "flags>\n"
                    "       distlock-weave SRC -o OUT [options] -p <build "
                    "dir>\n"
                    "(--help lists the options)\n";
    return 2;
  }
  if (Parsed->getSourcePathList().size() != 1) {
    llvm::errs() << "distlock-weave: give exactly one source file\n";
    return 2;
  }
  if (!hasFlagSeparator(argc, argv) &&
      isFlaglessFallback(Parsed->getCompilations(),
                         Parsed->getSourcePathList().front())) {
    llvm::errs() << "distlock-weave: no compile flags for "
                 << Parsed->getSourcePathList().front()
                 << ": give them after -- (-- -std=c++20 -Iinclude ...) or a "
                    "build directory with compile_commands.json by -p; "
                    "without them the source would be parsed without its "
                    "include paths and defines\n";
    return 2;
  }
  std::unique_ptr<CompilationDatabase> AsBuilt;
  if (!FlagsOf.empty()) {
    auto Flags = distlock::weave::flagsOf(
        Parsed->getCompilations(), distlock::weave::absolutePath(FlagsOf));
    if (!Flags) {
      llvm::errs() << "distlock-weave: " << llvm::toString(Flags.takeError())
                   << "\n";
      return 2;
    }
    AsBuilt = std::move(*Flags);
  }
  ClangTool Tool(AsBuilt ? *AsBuilt : Parsed->getCompilations(),
                 Parsed->getSourcePathList());
  // The weaver reads only what the compiler would: no object file, and the
  // depfile is its own (dependency flags would make clang write one).
  Tool.appendArgumentsAdjuster(getClangStripDependencyFileAdjuster());
  Tool.appendArgumentsAdjuster(distlock::weave::asioCoroutinesAdjuster());

  distlock::weave::WeaveOptions Options;
  Options.OutputPath = distlock::weave::absolutePath(OutputPath);
  Options.DepfilePath = DepfilePath;
  Options.LocksPath = LocksPath;
  if (SourceRoot.empty() != WovenRoot.empty()) {
    llvm::errs() << "distlock-weave: give --source-root and --woven-root "
                    "together\n";
    return 2;
  }
  Options.SourceRoot = distlock::weave::absolutePath(SourceRoot);
  Options.WovenRoot = distlock::weave::absolutePath(WovenRoot);
  return Tool.run(distlock::weave::newWeaveActionFactory(Options).get());
}
