// SPDX-License-Identifier: Apache-2.0
//===- WovenOutput.h - Writing the woven source and its depfile -----------===//

#ifndef DISTLOCK_TOOL_WOVENOUTPUT_H
#define DISTLOCK_TOOL_WOVENOUTPUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace distlock {
namespace weave {

enum class WriteMode {
  /// The build's declared outputs: always written, so they are newer than
  /// what they were made from.
  Always,
  /// Header copies: an unchanged one is left alone, so the sources that
  /// include it are not rebuilt.
  IfChanged,
};

/// Writes \p Text to \p Path through a temporary file, so that a failed run
/// never leaves a half-written output behind, and parallel runs writing the
/// same header copy never mix.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Text,
                                WriteMode Mode);

/// A woven file: the runtime headers its guards need (none, or
/// <distlock/woven.h> and, for coroutines, the Asio one), then
/// `#line 1 "<original>"` so the compiler reports the user's own file and
/// lines.
std::string wovenSource(llvm::StringRef SourcePath, llvm::StringRef Body,
                        llvm::ArrayRef<std::string> RuntimeHeaders);

/// A make-style depfile: "<target>: <dependency> ...".
std::string depfileText(llvm::StringRef Target,
                        llvm::ArrayRef<std::string> Dependencies);

} // namespace weave
} // namespace distlock

#endif
