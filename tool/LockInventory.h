// SPDX-License-Identifier: Apache-2.0
//===- LockInventory.h - The locked functions of a target, as JSON --------===//
//
// What distlock-weave records of each function it weaves, and what
// distlock-lock-order merges into <target>.distlock-locks.json: the lock's
// type, ttl and options as written, its keys, where it is, and the calls its
// body makes directly. docs/annotations.md documents the schema.
//
//===----------------------------------------------------------------------===//

#ifndef DISTLOCK_TOOL_LOCKINVENTORY_H
#define DISTLOCK_TOOL_LOCKINVENTORY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace distlock {
namespace weave {

/// Bumped when a field changes meaning or goes; new fields keep it.
inline constexpr int InventoryVersion = 1;

struct SourcePlace {
  std::string File;
  unsigned Line = 0;
  unsigned Column = 0;
};

struct KeyRecord {
  std::string Parameter;
  unsigned Index = 0; // the parameter's position, from 0
  std::string Path;   // empty: the parameter itself
};

struct CallRecord {
  std::string Name;
  std::string Usr; // clang's unified symbol resolution: one per function
  SourcePlace At;
  std::vector<std::string> Arguments; // as written
  /// The caller, a coroutine, co_awaits the call where it makes it.
  bool Awaited = false;
};

struct LockRecord {
  std::string Name;
  std::string Usr;
  /// The lock type's value when the attribute gives it as a string literal.
  std::optional<std::string> Type;
  std::string TypeAsWritten;
  std::string Ttl;
  std::vector<std::string> Options;
  std::vector<KeyRecord> Keys;
  SourcePlace At;
  std::vector<CallRecord> Calls;
  /// An Asio coroutine, whose guard awaits its locks: its leases belong to no
  /// thread and are not re-entered.
  bool Coroutine = false;

  /// What the lock-order check compares: the type, or the expression that
  /// names it when the weaver cannot know its value.
  std::string typeIdentity() const;
};

/// Splits an attribute's argument text at its top-level commas.
std::vector<std::string> splitArguments(llvm::StringRef Text);

/// A string literal's value ("order" for "\"order\""); std::nullopt for
/// anything else.
std::optional<std::string> plainStringLiteral(llvm::StringRef Text);

/// The lock type as written in a lock attribute's arguments: the first.
std::string lockTypeAsWritten(llvm::StringRef LockArguments);

/// LockRecord::typeIdentity() of a lock whose type is written \p AsWritten.
std::string lockTypeIdentity(llvm::StringRef AsWritten);

std::string inventoryText(llvm::ArrayRef<LockRecord> Locks,
                          llvm::StringRef Target = "");
llvm::Expected<std::vector<LockRecord>> parseInventory(llvm::StringRef Text,
                                                       llvm::StringRef From);

} // namespace weave
} // namespace distlock

#endif
