// SPDX-License-Identifier: Apache-2.0
//===- Diagnostics.h - Errors and warnings of distlock-weave
//---------------===//
//
// Every misuse the tool finds is reported the way clang reports its own:
// file:line:col, the message, the source line and a caret.
//
//===----------------------------------------------------------------------===//

#ifndef DISTLOCK_TOOL_DIAGNOSTICS_H
#define DISTLOCK_TOOL_DIAGNOSTICS_H

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/SourceLocation.h"
#include "llvm/ADT/Twine.h"

namespace distlock {
namespace weave {

class Diagnostics {
public:
  explicit Diagnostics(clang::DiagnosticsEngine &Engine) : Engine(Engine) {}

  void error(clang::SourceLocation Loc, const llvm::Twine &Message) {
    report(clang::DiagnosticsEngine::Error, Loc, Message);
  }
  void warning(clang::SourceLocation Loc, const llvm::Twine &Message) {
    report(clang::DiagnosticsEngine::Warning, Loc, Message);
  }
  void note(clang::SourceLocation Loc, const llvm::Twine &Message) {
    report(clang::DiagnosticsEngine::Note, Loc, Message);
  }
  bool hasErrors() const { return Engine.hasErrorOccurred(); }

private:
  void report(clang::DiagnosticsEngine::Level Level, clang::SourceLocation Loc,
              const llvm::Twine &Message) {
    unsigned ID = Engine.getCustomDiagID(Level, "%0");
    Engine.Report(Loc, ID) << Message.str();
  }

  clang::DiagnosticsEngine &Engine;
};

} // namespace weave
} // namespace distlock

#endif
