//===- GuardText.cpp - The statement woven into a locked function ---------===//

#include "GuardText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace distlock {
namespace weave {

std::string lineDirective(unsigned Line, llvm::StringRef File) {
  std::string Directive;
  llvm::raw_string_ostream OS(Directive);
  OS << "#line " << Line << " \"";
  OS.write_escaped(File);
  OS << "\"";
  return Directive;
}

std::string guardText(const GuardParts &Parts) {
  const PastedText &Args = Parts.LockArguments;
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  // The lambda brings the chrono literals into scope for 30s-style ttls: the
  // user's own scope has no reason to, as the compiler never saw the
  // arguments. constexpr makes bad arguments compile-time errors.
  // The spec is built on lines numbered as the attribute's, so a compiler
  // error in the arguments, or in the constant evaluation of the spec, points
  // at the user's attribute.
  const std::string AtAttribute = lineDirective(Args.Line, Args.File);
  OS << "\n"
     << AtAttribute << "\n"
     << "static constexpr ::distlock::woven::LockSpec distlock_woven_spec_ = "
        "[] "
        "{ using namespace ::std::chrono_literals; return "
        "::distlock::woven::spec(\n"
     << AtAttribute << "\n"
     << std::string(Args.Column > 0 ? Args.Column - 1 : 0, ' ') << Args.Text
     << "\n"
     << AtAttribute << "\n"
     << "); }();\n"
     << lineDirective(Parts.BodyLine, Parts.BodyFile) << "\n"
     << "::distlock::woven::ScopedLock "
        "distlock_woven_guard_(distlock_woven_spec_";
  if (!Parts.KeyExpressions.empty()) {
    OS << ", ::distlock::woven::key_of(";
    llvm::ListSeparator Comma;
    for (const std::string &Key : Parts.KeyExpressions)
      OS << Comma << Key;
    OS << ")";
  }
  OS << ");";
  return Text;
}

} // namespace weave
} // namespace distlock
