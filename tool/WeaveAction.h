// SPDX-License-Identifier: Apache-2.0
//===- WeaveAction.h - The frontend action of distlock-weave --------------===//
//
// Parses one translation unit with the distlock attributes registered, weaves
// it, and writes the woven source (and depfile) when no error was reported.
//
//===----------------------------------------------------------------------===//

#ifndef DISTLOCK_TOOL_WEAVEACTION_H
#define DISTLOCK_TOOL_WEAVEACTION_H

#include "clang/Tooling/Tooling.h"

#include <string>

namespace distlock {
namespace weave {

struct WeaveOptions {
  std::string OutputPath;
  std::string DepfilePath; // empty: no depfile
  /// Where the lock inventory of the woven functions goes; empty: nowhere.
  std::string LocksPath;
  /// Headers under SourceRoot that the translation unit reads are written,
  /// woven or copied through, to the same relative path under WovenRoot, so
  /// a compile that searches WovenRoot first sees every header woven. Both
  /// empty: functions defined in headers cannot be woven.
  std::string SourceRoot;
  std::string WovenRoot;
};

std::unique_ptr<clang::tooling::FrontendActionFactory>
newWeaveActionFactory(const WeaveOptions &Options);

} // namespace weave
} // namespace distlock

#endif
