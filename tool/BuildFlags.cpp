// SPDX-License-Identifier: Apache-2.0
//===- BuildFlags.cpp - Parsing a source as the build compiles it ---------===//

#include "BuildFlags.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

namespace distlock {
namespace weave {

namespace {

/// Options that take a value, joined ("-Idir") or as the next argument.
constexpr llvm::StringLiteral WithValue[] = {
    "-I", "-isystem", "-iquote",  "-idirafter",
    "-D", "-U",       "-include", "-imacros"};

/// Clang's driver looks beside a forced include for a precompiled header
/// (<header>.gch or .pch) and fails on one that another compiler or version
/// made, such as GCC's from CMake's target_precompile_headers. Given to the
/// frontend directly, the include is read as text, as the build's compiler
/// would see it without the precompiled header.
void keepForcedInclude(std::vector<std::string> &Kept, llvm::StringRef Header) {
  for (llvm::StringRef Arg : {"-Xclang", "-include", "-Xclang"})
    Kept.push_back(Arg.str());
  Kept.push_back(Header.str());
}

/// Options kept as written, matched by prefix.
constexpr llvm::StringLiteral Standalone[] = {
    "-std=",        "--std=",          "-stdlib=",      "-nostdinc",
    "-fexceptions", "-fno-exceptions", "-frtti",        "-fno-rtti",
    "-fchar8_t",    "-fno-char8_t",    "-fsigned-char", "-funsigned-char",
    "-pthread"};

/// The arguments of a command line as its compiler reads them: an option
/// handed to Clang's frontend with -Xclang (as CMake's precompiled headers
/// under Clang are: -Xclang -include -Xclang <header>) is read as written
/// without it, each of its values after an -Xclang of its own.
std::vector<llvm::StringRef>
unwrapFrontendOptions(llvm::ArrayRef<std::string> CommandLine) {
  std::vector<llvm::StringRef> Arguments;
  for (size_t I = 1; I < CommandLine.size(); ++I) {
    if (CommandLine[I] == "-Xclang" && I + 1 < CommandLine.size())
      ++I;
    Arguments.push_back(CommandLine[I]);
  }
  return Arguments;
}

} // namespace

std::vector<std::string> parseFlags(llvm::ArrayRef<std::string> CommandLine) {
  const std::vector<llvm::StringRef> Arguments =
      unwrapFrontendOptions(CommandLine);
  std::vector<std::string> Kept;
  for (size_t I = 0; I < Arguments.size(); ++I) {
    llvm::StringRef Arg = Arguments[I];
    if (llvm::any_of(Standalone, [&](llvm::StringRef Prefix) {
          return Arg.startswith(Prefix);
        })) {
      Kept.push_back(Arg.str());
      continue;
    }
    // The build's precompiled header is another compiler's (or another
    // Clang's) binary: the header it was made from, forced with -include
    // beside it, is read as text instead.
    if (Arg == "-include-pch") {
      ++I;
      continue;
    }
    for (llvm::StringRef Option : WithValue) {
      if (!Arg.startswith(Option))
        continue;
      if (Option == "-include") {
        if (Arg != Option)
          keepForcedInclude(Kept, Arg.drop_front(Option.size()));
        else if (I + 1 < Arguments.size())
          keepForcedInclude(Kept, Arguments[++I]);
      } else if (Arg != Option) {
        Kept.push_back(Arg.str());
      } else if (I + 1 < Arguments.size()) {
        Kept.push_back(Arg.str());
        Kept.push_back(Arguments[++I].str());
      }
      break;
    }
  }
  return Kept;
}

llvm::Expected<std::unique_ptr<clang::tooling::CompilationDatabase>>
flagsOf(const clang::tooling::CompilationDatabase &Build,
        llvm::StringRef File) {
  std::vector<clang::tooling::CompileCommand> Commands =
      Build.getCompileCommands(File);
  // A command inferred from another file's (a database that interpolates
  // does so for a file it lacks) has that file's target's macros and
  // includes, not the build's for this one.
  llvm::erase_if(Commands, [](const clang::tooling::CompileCommand &Command) {
    return !Command.Heuristic.empty();
  });
  if (Commands.empty())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "the compilation database has no command of its own for '" + File +
            "' (--flags-of); is it a source of a target that "
            "EXPORT_COMPILE_COMMANDS, outside a unity build "
            "(SKIP_UNITY_BUILD_INCLUSION)?");
  const clang::tooling::CompileCommand &Command = Commands.front();
  return std::make_unique<clang::tooling::FixedCompilationDatabase>(
      Command.Directory, parseFlags(Command.CommandLine));
}

clang::tooling::ArgumentsAdjuster asioCoroutinesAdjuster() {
  return [](const clang::tooling::CommandLineArguments &Arguments,
            llvm::StringRef) {
    bool Cxx20 = false;
    for (const std::string &Argument : Arguments) {
      llvm::StringRef Flag(Argument);
      if (!Flag.consume_front("-std="))
        continue;
      // The last -std wins, as it does for the compiler.
      Flag.consume_front("gnu++") || Flag.consume_front("c++");
      Cxx20 = Flag == "20" || Flag == "2a" || Flag == "23" || Flag == "2b" ||
              Flag == "26" || Flag == "2c";
    }
    clang::tooling::CommandLineArguments Adjusted = Arguments;
    if (Cxx20)
      for (const char *Define :
           {"-DASIO_HAS_CO_AWAIT=1", "-DASIO_HAS_STD_COROUTINE=1",
            "-DBOOST_ASIO_HAS_CO_AWAIT=1", "-DBOOST_ASIO_HAS_STD_COROUTINE=1"})
        Adjusted.push_back(Define);
    return Adjusted;
  };
}

} // namespace weave
} // namespace distlock
