// SPDX-License-Identifier: Apache-2.0
// The lock-order check on inventories built by hand: cycles among lock types, nested locks of
// one type, and the merge of a target's inventories.
#include "LockOrder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace distlock::weave {
namespace {

LockRecord locked(const std::string& Name, const std::string& Type,
                  std::vector<KeyRecord> Keys = {{"id", 0, ""}}) {
  LockRecord Lock;
  Lock.Name = Name;
  Lock.Usr = "usr:" + Name;
  Lock.Type = Type;
  Lock.TypeAsWritten = "\"" + Type + "\"";
  Lock.Ttl = "5s";
  Lock.Keys = std::move(Keys);
  Lock.At = {Name + ".cpp", 1, 6};
  return Lock;
}

void calls(LockRecord& Caller, const std::string& Callee, unsigned Line,
           std::vector<std::string> Arguments = {"id"}) {
  Caller.Calls.push_back({Callee, "usr:" + Callee, {Caller.Name + ".cpp", Line, 3}, Arguments});
}

std::string check(const std::vector<LockRecord>& Locks, LockOrderFindings& Findings) {
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  Findings = checkLockOrder(Locks, OS);
  return Out;
}

TEST(LockOrder, ATwoTypeCycleNamesBothCallSites) {
  LockRecord F = locked("f", "a"), G = locked("g", "b"), H = locked("h", "b"), K = locked("k", "a");
  calls(F, "g", 4);
  calls(H, "k", 7);
  LockOrderFindings Findings;
  const std::string Out = check({F, G, H, K}, Findings);
  EXPECT_EQ(Findings.Cycles, 1u);
  EXPECT_NE(Out.find("f.cpp:4:3: error: lock-order cycle 'a' -> 'b' -> 'a'"), std::string::npos)
      << Out;
  EXPECT_NE(Out.find("f.cpp:4:3: note: 'f' holds 'a' and calls 'g' here, which takes 'b'"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("h.cpp:7:3: note: 'h' holds 'b' and calls 'k' here, which takes 'a'"),
            std::string::npos)
      << Out;
}

TEST(LockOrder, AThreeTypeCycleAndNoneWithoutTheClosingCall) {
  LockRecord A = locked("fa", "a"), B = locked("fb", "b"), C = locked("fc", "c");
  calls(A, "fb", 2);
  calls(B, "fc", 3);
  LockOrderFindings Findings;
  EXPECT_EQ(check({A, B, C}, Findings), "");
  EXPECT_EQ(Findings.Cycles, 0u);
  calls(C, "fa", 4);
  const std::string Out = check({A, B, C}, Findings);
  EXPECT_EQ(Findings.Cycles, 1u);
  EXPECT_NE(Out.find("lock-order cycle 'a' -> 'b' -> 'c' -> 'a'"), std::string::npos) << Out;
}

TEST(LockOrder, SameTypeWithAnotherKeyWarnsAndTheSameKeyIsReentrant) {
  LockRecord Outer = locked("outer", "a"), Inner = locked("inner", "a");
  calls(Outer, "inner", 5, {"id"});
  LockOrderFindings Findings;
  EXPECT_EQ(check({Outer, Inner}, Findings), "");
  EXPECT_EQ(Findings.NestedSameType, 0u);
  calls(Outer, "inner", 6, {"other_id"});
  const std::string Out = check({Outer, Inner}, Findings);
  EXPECT_EQ(Findings.NestedSameType, 1u);
  EXPECT_EQ(Findings.Cycles, 0u);
  EXPECT_NE(Out.find("outer.cpp:6:3: warning: 'outer' holds a lock of type 'a' and calls 'inner'"),
            std::string::npos)
      << Out;
}

// A lock type given by a named constant is compared by the expression that names it.
TEST(LockOrder, TypesNamedByConstantsAreComparedAsWritten) {
  LockRecord F = locked("f", "x"), G = locked("g", "x");
  G.Type.reset();
  G.TypeAsWritten = "kOtherType";
  calls(F, "g", 3, {"other"});
  LockOrderFindings Findings;
  EXPECT_EQ(check({F, G}, Findings), "");
}

LockRecord lockedCoroutine(const std::string& Name, const std::string& Type) {
  LockRecord Lock = locked(Name, Type);
  Lock.Coroutine = true;
  return Lock;
}

void awaits(LockRecord& Caller, const std::string& Callee, unsigned Line) {
  calls(Caller, Callee, Line);
  Caller.Calls.back().Awaited = true;
}

// A coroutine's lease is not re-entered: under the same key too, its own type again is an error.
TEST(LockOrder, ACoroutineAwaitingItsOwnTypeIsAnErrorInsteadOfAWarning) {
  LockRecord Outer = lockedCoroutine("outer", "a"), Inner = lockedCoroutine("inner", "a");
  awaits(Outer, "inner", 5);
  LockOrderFindings Findings;
  const std::string Out = check({Outer, Inner}, Findings);
  EXPECT_EQ(Findings.CoroutineReentries, 1u);
  EXPECT_EQ(Findings.NestedSameType, 0u);
  EXPECT_NE(Out.find("outer.cpp:5:3: error: coroutine reentry 'outer' -> 'inner': 'outer' holds "
                     "its lock of type 'a'"),
            std::string::npos)
      << Out;
}

TEST(LockOrder, ACoroutineReachingItsOwnTypeThroughOthersNamesEachCall) {
  LockRecord Outer = lockedCoroutine("outer", "a"), Middle = lockedCoroutine("middle", "b"),
             OnThread = locked("on_thread", "c"), Inner = locked("inner", "a");
  awaits(Outer, "middle", 4);
  calls(Middle, "on_thread", 7);
  calls(OnThread, "inner", 9);
  LockOrderFindings Findings;
  const std::string Out = check({Outer, Middle, OnThread, Inner}, Findings);
  EXPECT_EQ(Findings.CoroutineReentries, 1u);
  EXPECT_NE(Out.find("outer.cpp:4:3: error: coroutine reentry 'outer' -> 'middle' -> 'on_thread' "
                     "-> 'inner'"),
            std::string::npos)
      << Out;
  EXPECT_NE(Out.find("outer.cpp:4:3: note: 'outer' awaits 'middle' here\n"
                     "middle.cpp:7:3: note: 'middle' calls 'on_thread' here\n"
                     "on_thread.cpp:9:3: note: 'on_thread' calls 'inner' here\n"),
            std::string::npos)
      << Out;
}

// A coroutine merely called takes its lock when whoever awaits it does; a function on a thread
// re-enters its own leases.
TEST(LockOrder, NoReentryThroughAnUnawaitedCoroutineNorOnAThread) {
  LockRecord Outer = lockedCoroutine("outer", "a"), Inner = lockedCoroutine("inner", "a"),
             OnThread = locked("on_thread", "b"), Again = locked("again", "b");
  calls(Outer, "inner", 5);
  calls(OnThread, "again", 6);
  LockOrderFindings Findings;
  check({Outer, Inner, OnThread, Again}, Findings);
  EXPECT_EQ(Findings.CoroutineReentries, 0u);
}

TEST(MergeInventories, OneRecordPerFunctionCallsToLockedOnesSortedByName) {
  LockRecord F = locked("f", "a"), G = locked("g", "b");
  calls(F, "g", 2);
  calls(F, "printf_like", 3);
  const std::vector<LockRecord> Merged = mergeInventories({{G, F}, {F}});
  ASSERT_EQ(Merged.size(), 2u);
  EXPECT_EQ(Merged[0].Name, "f");
  EXPECT_EQ(Merged[1].Name, "g");
  ASSERT_EQ(Merged[0].Calls.size(), 1u);
  EXPECT_EQ(Merged[0].Calls[0].Name, "g");
}

}  // namespace
}  // namespace distlock::weave
