// SPDX-License-Identifier: Apache-2.0
//===- lock_order_main.cpp - distlock-lock-order --------------------------===//
//
// distlock-lock-order -o OUT [--target NAME] [--no-order-check] INVENTORY...
//
// Merges the lock inventories distlock-weave wrote for a target's sources
// into OUT (<target>.distlock-locks.json) and checks the order in which the
// target's locked functions take their locks. Exit codes: 0 written (warnings
// may have been reported), 1 a lock-order cycle or a coroutine's reentry (OUT
// is not written), 2 bad usage or an unreadable inventory.
//
//===----------------------------------------------------------------------===//

#include "LockInventory.h"
#include "LockOrder.h"
#include "WovenOutput.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace distlock::weave;

static llvm::cl::OptionCategory
    LockOrderCategory("distlock-lock-order options");

static llvm::cl::opt<std::string>
    OutputPath("o", llvm::cl::desc("Write the merged lock inventory to <file>"),
               llvm::cl::value_desc("file"), llvm::cl::Required,
               llvm::cl::cat(LockOrderCategory));

static llvm::cl::opt<std::string>
    TargetName("target", llvm::cl::desc("The target the inventory is of"),
               llvm::cl::value_desc("name"), llvm::cl::cat(LockOrderCategory));

static llvm::cl::opt<bool> NoOrderCheck(
    "no-order-check",
    llvm::cl::desc("Merge only: do not check the order of the locks"),
    llvm::cl::cat(LockOrderCategory));

static llvm::cl::list<std::string>
    Inventories(llvm::cl::Positional, llvm::cl::desc("<inventory>..."),
                llvm::cl::cat(LockOrderCategory));

int main(int argc, const char **argv) {
  llvm::cl::HideUnrelatedOptions(LockOrderCategory);
  if (!llvm::cl::ParseCommandLineOptions(
          argc, argv,
          "Merges the lock inventories that distlock-weave --locks-out wrote "
          "for a target's sources, and fails on a lock-order cycle among its "
          "locked functions or a locked coroutine that takes its own lock "
          "type again.\n",
          &llvm::errs()))
    return 2;
  std::vector<std::vector<LockRecord>> Parts;
  for (const std::string &Path : Inventories) {
    auto Buffer = llvm::MemoryBuffer::getFile(Path);
    if (!Buffer) {
      llvm::errs() << "distlock-lock-order: cannot read '" << Path
                   << "': " << Buffer.getError().message() << "\n";
      return 2;
    }
    auto Locks = parseInventory((*Buffer)->getBuffer(), Path);
    if (!Locks) {
      llvm::errs() << "distlock-lock-order: "
                   << llvm::toString(Locks.takeError()) << "\n";
      return 2;
    }
    Parts.push_back(std::move(*Locks));
  }
  const std::vector<LockRecord> Merged = mergeInventories(Parts);
  if (!NoOrderCheck) {
    const LockOrderFindings Findings = checkLockOrder(Merged, llvm::errs());
    if (Findings.Cycles > 0 || Findings.CoroutineReentries > 0) {
      // No manifest: a build system that keeps outputs would take the target
      // as checked the next time.
      llvm::sys::fs::remove(OutputPath);
      return 1;
    }
  }
  if (llvm::Error Failed =
          writeFileAtomically(OutputPath, inventoryText(Merged, TargetName),
                              WriteMode::IfChanged)) {
    llvm::errs() << "distlock-lock-order: " << llvm::toString(std::move(Failed))
                 << "\n";
    return 2;
  }
  return 0;
}
