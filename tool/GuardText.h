// SPDX-License-Identifier: Apache-2.0
//===- GuardText.h - The statement woven into a locked function -----------===//
//
// The guard is inserted right after the body's '{' and keeps every line of
// the source at its number: the lock arguments are pasted between #line
// directives naming the attribute's own line and column, so the compiler
// reports a mistake in them where the user wrote it, and a final #line puts
// the rest of the '{' line back at its number. The checks of on_busy against
// the function's return type and parameters stand on the attribute's line
// too. The guard names only what <distlock/woven.h> declares
// (WovenRuntimeHeader).
//
//===----------------------------------------------------------------------===//

#ifndef DISTLOCK_TOOL_GUARDTEXT_H
#define DISTLOCK_TOOL_GUARDTEXT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace distlock {
namespace weave {

struct PastedText {
  std::string Text;
  std::string File;  // the file the text was written in
  unsigned Line = 0; // where it starts
  unsigned Column = 0;
};

struct ForwardedParameter {
  std::string Name;
  bool IsPack = false;
};

/// What the guard returns when on_busy(skip) or on_busy(fallback) finds the
/// lock busy: the function's result type, and what a fallback is called with.
struct BusyReturn {
  /// The return type as the body can name it; std::nullopt where the function
  /// has none to give (a constructor, a destructor, a deduced return type),
  /// and only LockTimeout can report a busy lock.
  std::optional<std::string> ResultType;
  /// A fallback of a non-static member is called on `this`.
  bool OnThis = false;
  /// The parameters a fallback gets, in order; std::nullopt when one has no
  /// name (or the function is C-variadic), so that no fallback can be given.
  std::optional<std::vector<ForwardedParameter>> Parameters;
};

/// A coroutine the guard awaits its locks in: an Asio awaitable<T>.
struct CoroutineReturn {
  /// T as the body can name it.
  std::string ValueType;
  /// boost::asio::awaitable rather than asio::awaitable.
  bool BoostAsio = false;
};

struct GuardParts {
  PastedText LockArguments;
  /// Expressions giving the key parts, in parameter order.
  llvm::ArrayRef<std::string> KeyExpressions;
  BusyReturn Busy;
  /// Set for a coroutine: the locks are awaited (co_await), and a busy result
  /// is returned with co_return.
  std::optional<CoroutineReturn> Coroutine;
  /// Where the guard goes: the file and line of the body's '{'.
  std::string BodyFile;
  unsigned BodyLine = 0;
};

std::string guardText(const GuardParts &Parts);

/// The LockedCall the guard declares: a woven coroutine's body names it for
/// its lease.
inline constexpr llvm::StringLiteral GuardVariable = "distlock_woven_guard_";

/// A function of namespace distlock that answers for the lease of the call it
/// is made in, by the number of parameters it has: current(),
/// current_leases() and checked(op, undo).
struct LeaseFunction {
  llvm::StringLiteral Name;
  unsigned Parameters;
};
inline constexpr LeaseFunction LeaseFunctions[] = {
    {"current", 0}, {"current_leases", 0}, {"checked", 2}};

/// What a woven coroutine's body calls instead of distlock::<Name>: the
/// overload of distlock::woven that takes the guard as its first argument.
std::string guardLeaseFunction(llvm::StringRef Name);

/// The one runtime header a woven file includes: the names the guard uses.
inline constexpr const char *WovenRuntimeHeader = "distlock/woven.h";
/// What a file with a woven Asio coroutine includes too: the names its guard
/// awaits, for standalone Asio and for Boost.Asio.
inline constexpr const char *WovenAsioHeader = "distlock/asio.h";
inline constexpr const char *WovenBoostAsioHeader = "distlock/boost_asio.h";

/// `#line N "file"` with the file name escaped as a string literal.
std::string lineDirective(unsigned Line, llvm::StringRef File);

} // namespace weave
} // namespace distlock

#endif
