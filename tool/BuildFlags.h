// SPDX-License-Identifier: Apache-2.0
//===- BuildFlags.h - Parsing a source as the build compiles it -----------===//
//
// distlock_weave() gives the weaver the build's compilation database and the
// woven copy's name (--flags-of): the build compiles the copy, so its entry
// holds exactly the flags the source is compiled with, including a standard
// that compile features raised. The weaver keeps those that change what the
// parser sees (language standard, include paths, macros, forced includes,
// exceptions and RTTI) and drops the rest, which may be another compiler's.
//
//===----------------------------------------------------------------------===//

#ifndef DISTLOCK_TOOL_BUILDFLAGS_H
#define DISTLOCK_TOOL_BUILDFLAGS_H

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace distlock {
namespace weave {

/// The arguments of \p CommandLine (compiler first, as in a compilation
/// database) that change how a source parses, in their order, each option
/// with its value; a forced include (-include) is given to Clang's frontend
/// (-Xclang), which reads the header itself, never a precompiled one.
std::vector<std::string> parseFlags(llvm::ArrayRef<std::string> CommandLine);

/// A database that gives every source the parse flags of \p File's entry in
/// \p Build, in that entry's directory. An error names \p File when \p Build
/// has no entry of its own for it (only one inferred from another file's).
llvm::Expected<std::unique_ptr<clang::tooling::CompilationDatabase>>
flagsOf(const clang::tooling::CompilationDatabase &Build, llvm::StringRef File);

/// Asio (standalone and Boost's) turns its coroutines off when Clang parses
/// with libstdc++, so asio::awaitable would be unknown to the weaver where the
/// build's GCC knows it. For a parse at C++20 or later, adds the defines that
/// turn them on, as GCC has them: the weaver sees the Asio the build sees.
clang::tooling::ArgumentsAdjuster asioCoroutinesAdjuster();

} // namespace weave
} // namespace distlock

#endif
