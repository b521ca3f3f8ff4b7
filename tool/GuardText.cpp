// SPDX-License-Identifier: Apache-2.0
//===- GuardText.cpp - The statement woven into a locked function ---------===//

#include "GuardText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace distlock {
namespace weave {

namespace {

constexpr llvm::StringLiteral Annotation = "distlock_woven_lock_";

constexpr llvm::StringLiteral NoResultMessage =
    "on_busy needs a result to return, and a constructor, a destructor or a "
    "deduced return type has none: remove on_busy";
constexpr llvm::StringLiteral SkipMessage =
    "on_busy(skip) needs a return type it can value-initialize (void or a "
    "default-constructible type); or use on_busy(fallback(&f))";
constexpr llvm::StringLiteral FallbackMessage =
    "on_busy(fallback(&f)): f must take this function's parameters and return "
    "its return type (for a member: of the same class, as const)";
constexpr llvm::StringLiteral UnnamedMessage =
    "on_busy(fallback(&f)) passes every argument to f: name each parameter "
    "(and use no C '...')";

void writeStaticAssert(llvm::raw_ostream &OS, llvm::StringRef AtAttribute,
                       llvm::StringRef Condition, llvm::StringRef Message) {
  OS << AtAttribute << "\n"
     << "static_assert(" << Condition << ", \"" << Message << "\");\n";
}

/// The checks of on_busy against what the function can return, at the
/// attribute's line: a mismatch is the user's to fix there. A coroutine skips
/// with its awaitable's value, and falls back to a coroutine of its own type.
void writeBusyChecks(llvm::raw_ostream &OS, const BusyReturn &Busy,
                     const std::optional<CoroutineReturn> &Coroutine,
                     llvm::StringRef AtAttribute) {
  if (!Busy.ResultType) {
    writeStaticAssert(OS, AtAttribute,
                      "::distlock::woven::raises_when_busy(" +
                          Annotation.str() + ")",
                      NoResultMessage);
    return;
  }
  const std::string &Result = *Busy.ResultType;
  const std::string &Skipped = Coroutine ? Coroutine->ValueType : Result;
  writeStaticAssert(OS, AtAttribute,
                    "::distlock::woven::skip_fits<" + Skipped + ">(" +
                        Annotation.str() + ")",
                    SkipMessage);
  if (!Busy.Parameters) {
    writeStaticAssert(OS, AtAttribute,
                      "!::distlock::woven::calls_fallback(" + Annotation.str() +
                          ")",
                      UnnamedMessage);
    return;
  }
  std::string Condition;
  llvm::raw_string_ostream Check(Condition);
  Check << "::distlock::woven::fallback_fits<" << Result << ", "
        << (Busy.OnThis ? "decltype(this)" : "::distlock::woven::NoObject");
  for (const ForwardedParameter &Parameter : *Busy.Parameters)
    Check << ", decltype(" << Parameter.Name << ")"
          << (Parameter.IsPack ? "..." : "");
  Check << ">(" << Annotation << ")";
  writeStaticAssert(OS, AtAttribute, Condition, FallbackMessage);
}

/// ` if (busy) return <the busy result>;` after the guard, for a function
/// that has a result to return; a coroutine's co_returns what it awaits.
void writeBusyReturn(llvm::raw_ostream &OS, const BusyReturn &Busy,
                     const std::optional<CoroutineReturn> &Coroutine) {
  if (!Busy.ResultType)
    return;
  if (Coroutine)
    OS << " if (" << GuardVariable
       << ".busy()) co_return co_await ::distlock::woven::"
       << (Coroutine->BoostAsio ? "boost_" : "") << "async_busy_result<"
       << Coroutine->ValueType << ">(";
  else
    OS << " if (" << GuardVariable
       << ".busy()) return ::distlock::woven::busy_result<" << *Busy.ResultType
       << ">(";
  OS << Annotation << ", "
     << (Busy.OnThis ? "this" : "::distlock::woven::no_object");
  // Each argument as the function received it: the body does not run, so a
  // by-value parameter may move into the fallback.
  if (Busy.Parameters)
    for (const ForwardedParameter &Parameter : *Busy.Parameters)
      OS << ", static_cast<decltype(" << Parameter.Name << ")&&>("
         << Parameter.Name << ")" << (Parameter.IsPack ? "..." : "");
  OS << ");";
}

} // namespace

std::string guardLeaseFunction(llvm::StringRef Name) {
  return ("::distlock::woven::" + Name).str();
}

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
  // The annotation is built on lines numbered as the attribute's, so a
  // compiler error in the arguments, or in the constant evaluation of the
  // spec, points at the user's attribute.
  const std::string AtAttribute = lineDirective(Args.Line, Args.File);
  OS << "\n"
     << AtAttribute << "\n"
     << "static constexpr auto " << Annotation
     << " = [] { using namespace ::std::chrono_literals; return "
        "::distlock::woven::annotation(\n"
     << AtAttribute << "\n"
     << std::string(Args.Column > 0 ? Args.Column - 1 : 0, ' ') << Args.Text
     << "\n"
     << AtAttribute << "\n"
     << "); }();\n";
  writeBusyChecks(OS, Parts.Busy, Parts.Coroutine, AtAttribute);
  OS << lineDirective(Parts.BodyLine, Parts.BodyFile) << "\n"
     << "::distlock::woven::LockedCall " << GuardVariable << "(" << Annotation
     << ".spec, ";
  // A coroutine's locks are taken without blocking its thread: awaited.
  if (Parts.Coroutine)
    OS << "co_await ::distlock::woven::"
       << (Parts.Coroutine->BoostAsio ? "boost_" : "") << "async_take("
       << Annotation << ".spec, ";
  OS << "::distlock::woven::keys(";
  llvm::ListSeparator Comma;
  for (const std::string &Key : Parts.KeyExpressions)
    OS << Comma << Key;
  OS << (Parts.Coroutine ? ")));" : "));");
  writeBusyReturn(OS, Parts.Busy, Parts.Coroutine);
  return Text;
}

} // namespace weave
} // namespace distlock
