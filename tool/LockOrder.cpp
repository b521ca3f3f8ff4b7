// SPDX-License-Identifier: Apache-2.0
//===- LockOrder.cpp - Lock-order cycles among a target's locked functions ===//

#include "LockOrder.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <utility>

namespace distlock {
namespace weave {

namespace {

/// f, holding its lock, calls Callee at Call, which takes its own.
struct Nesting {
  const LockRecord *Holder;
  const CallRecord *Call;
  const LockRecord *Callee;
};

using KeyParts = std::vector<std::pair<std::string, std::string>>;

KeyParts keysOfHolder(const LockRecord &Holder) {
  KeyParts Parts;
  for (const KeyRecord &Key : Holder.Keys)
    Parts.emplace_back(Key.Parameter, Key.Path);
  return Parts;
}

/// The callee's keys as the call gives them: the argument in place of each
/// key parameter.
KeyParts keysAtCall(const LockRecord &Callee, const CallRecord &Call) {
  KeyParts Parts;
  for (const KeyRecord &Key : Callee.Keys)
    Parts.emplace_back(Key.Index < Call.Arguments.size()
                           ? Call.Arguments[Key.Index]
                           : std::string(),
                       Key.Path);
  return Parts;
}

void report(llvm::raw_ostream &OS, const SourcePlace &At, llvm::StringRef Level,
            const llvm::Twine &Message) {
  OS << At.File << ":" << At.Line << ":" << At.Column << ": " << Level << ": "
     << Message << "\n";
}

/// The lock types as a graph: an edge for each nesting of different types.
class TypeGraph {
public:
  void add(const Nesting &Edge) {
    const std::string From = Edge.Holder->typeIdentity();
    const std::string To = Edge.Callee->typeIdentity();
    Edges[From].push_back(Edge);
    Edges.try_emplace(To);
  }

  /// One cycle for each group of types that reach each other, from the
  /// group's first type by name: the fewest nestings that lead back to it.
  std::vector<std::vector<Nesting>> cycles() {
    std::vector<std::vector<Nesting>> Found;
    for (const std::set<std::string> &Group : stronglyConnected())
      if (Group.size() > 1)
        Found.push_back(shortestCycle(*Group.begin(), Group));
    return Found;
  }

private:
  std::vector<std::set<std::string>> stronglyConnected() {
    Index.clear();
    Low.clear();
    Stack.clear();
    OnStack.clear();
    Groups.clear();
    for (const auto &Node : Edges)
      if (!Index.count(Node.first))
        visit(Node.first);
    return Groups;
  }

  // Tarjan's algorithm; the graphs are a target's lock types, a handful.
  void visit(const std::string &Node) {
    Index[Node] = Low[Node] = Counter++;
    Stack.push_back(Node);
    OnStack.insert(Node);
    for (const Nesting &Edge : Edges[Node]) {
      const std::string Next = Edge.Callee->typeIdentity();
      if (!Index.count(Next)) {
        visit(Next);
        Low[Node] = std::min(Low[Node], Low[Next]);
      } else if (OnStack.count(Next)) {
        Low[Node] = std::min(Low[Node], Index[Next]);
      }
    }
    if (Low[Node] != Index[Node])
      return;
    std::set<std::string> Group;
    std::string Member;
    do {
      Member = Stack.back();
      Stack.pop_back();
      OnStack.erase(Member);
      Group.insert(Member);
    } while (Member != Node);
    Groups.push_back(std::move(Group));
  }

  std::vector<Nesting> shortestCycle(const std::string &Start,
                                     const std::set<std::string> &Group) {
    std::map<std::string, Nesting> ReachedBy;
    std::deque<std::string> Queue{Start};
    while (!Queue.empty() && !ReachedBy.count(Start)) {
      const std::string Node = Queue.front();
      Queue.pop_front();
      for (const Nesting &Edge : Edges[Node]) {
        const std::string Next = Edge.Callee->typeIdentity();
        if (!Group.count(Next) || ReachedBy.count(Next))
          continue;
        ReachedBy.emplace(Next, Edge);
        if (Next == Start)
          break;
        Queue.push_back(Next);
      }
    }
    std::vector<Nesting> Cycle;
    std::string Node = Start;
    do {
      const Nesting &Edge = ReachedBy.at(Node);
      Cycle.push_back(Edge);
      Node = Edge.Holder->typeIdentity();
    } while (Node != Start);
    std::reverse(Cycle.begin(), Cycle.end());
    return Cycle;
  }

  std::map<std::string, std::vector<Nesting>> Edges;
  std::map<std::string, unsigned> Index;
  std::map<std::string, unsigned> Low;
  std::vector<std::string> Stack;
  std::set<std::string> OnStack;
  std::vector<std::set<std::string>> Groups;
  unsigned Counter = 0;
};

std::string quotedType(const LockRecord &Lock) {
  return Lock.Type ? "'" + *Lock.Type + "'" : Lock.TypeAsWritten;
}

/// Whether \p Callee, called at \p Call, runs while its caller holds its
/// lock: a function that locks on the thread runs inside its caller, a
/// coroutine only where its caller awaits it.
bool runsInside(const CallRecord &Call, const LockRecord &Callee) {
  return !Callee.Coroutine || Call.Awaited;
}

/// The nestings among a target's locked functions, by caller.
class CallGraph {
public:
  explicit CallGraph(const std::vector<LockRecord> &Locks) {
    llvm::StringMap<const LockRecord *> ByUsr;
    for (const LockRecord &Lock : Locks)
      ByUsr.try_emplace(Lock.Usr, &Lock);
    for (const LockRecord &Holder : Locks)
      for (const CallRecord &Call : Holder.Calls) {
        auto Found = ByUsr.find(Call.Usr);
        if (Found != ByUsr.end())
          Nestings[&Holder].push_back({&Holder, &Call, Found->second});
      }
  }

  llvm::ArrayRef<Nesting> callsOf(const LockRecord &Holder) const {
    auto Found = Nestings.find(&Holder);
    return Found == Nestings.end() ? llvm::ArrayRef<Nesting>()
                                   : llvm::ArrayRef<Nesting>(Found->second);
  }

  /// The fewest nestings, each run inside the one before, from the coroutine
  /// \p Holder to a function that takes a lock of its type; empty when none
  /// does.
  std::vector<Nesting> reentryOf(const LockRecord &Holder) const {
    std::map<const LockRecord *, Nesting> ReachedBy;
    std::deque<const LockRecord *> Queue{&Holder};
    while (!Queue.empty()) {
      const LockRecord *Node = Queue.front();
      Queue.pop_front();
      for (const Nesting &Edge : callsOf(*Node)) {
        if (!runsInside(*Edge.Call, *Edge.Callee))
          continue;
        if (Edge.Callee->typeIdentity() == Holder.typeIdentity())
          return pathTo(Edge, Holder, ReachedBy);
        if (ReachedBy.emplace(Edge.Callee, Edge).second)
          Queue.push_back(Edge.Callee);
      }
    }
    return {};
  }

private:
  static std::vector<Nesting>
  pathTo(const Nesting &Last, const LockRecord &Holder,
         const std::map<const LockRecord *, Nesting> &ReachedBy) {
    std::vector<Nesting> Path{Last};
    while (Path.back().Holder != &Holder)
      Path.push_back(ReachedBy.at(Path.back().Holder));
    std::reverse(Path.begin(), Path.end());
    return Path;
  }

  std::map<const LockRecord *, std::vector<Nesting>> Nestings;
};

void reportReentry(llvm::raw_ostream &OS, const std::vector<Nesting> &Path) {
  const LockRecord &Holder = *Path.front().Holder;
  std::string Chain = "'" + Holder.Name + "'";
  for (const Nesting &Edge : Path)
    Chain += " -> '" + Edge.Callee->Name + "'";
  report(OS, Path.front().Call->At, "error",
         "coroutine reentry " + Chain + ": '" + Holder.Name +
             "' holds its lock of type " + quotedType(Holder) + " and '" +
             Path.back().Callee->Name +
             "' takes a lock of that type inside it; a coroutine's lease "
             "belongs to no thread and is not re-entered, so with the same "
             "key this waits for the coroutine itself until the spec's wait "
             "runs out; do that work in a function without "
             "[[distlock::lock]], or outside '" +
             Holder.Name + "'");
  for (const Nesting &Edge : Path)
    report(OS, Edge.Call->At, "note",
           "'" + Edge.Holder->Name + "' " +
               (Edge.Call->Awaited ? "awaits" : "calls") + " '" +
               Edge.Callee->Name + "' here");
}

} // namespace

std::vector<LockRecord>
mergeInventories(const std::vector<std::vector<LockRecord>> &Inventories) {
  std::map<std::string, LockRecord> ByUsr;
  for (const std::vector<LockRecord> &Inventory : Inventories)
    for (const LockRecord &Lock : Inventory)
      ByUsr.try_emplace(Lock.Usr, Lock);
  std::vector<LockRecord> Merged;
  for (auto &Entry : ByUsr) {
    LockRecord &Lock = Entry.second;
    llvm::erase_if(Lock.Calls, [&](const CallRecord &Call) {
      return !ByUsr.count(Call.Usr);
    });
    Merged.push_back(std::move(Lock));
  }
  std::stable_sort(
      Merged.begin(), Merged.end(),
      [](const LockRecord &A, const LockRecord &B) { return A.Name < B.Name; });
  return Merged;
}

LockOrderFindings checkLockOrder(const std::vector<LockRecord> &Locks,
                                 llvm::raw_ostream &OS) {
  const CallGraph Calls(Locks);
  LockOrderFindings Findings;
  TypeGraph Graph;
  for (const LockRecord &Holder : Locks)
    for (const Nesting &Edge : Calls.callsOf(Holder)) {
      const LockRecord &Callee = *Edge.Callee;
      const CallRecord &Call = *Edge.Call;
      if (Callee.typeIdentity() != Holder.typeIdentity()) {
        Graph.add(Edge);
        continue;
      }
      // A coroutine's reentry is an error of its own, below.
      if (keysAtCall(Callee, Call) == keysOfHolder(Holder) ||
          (Holder.Coroutine && runsInside(Call, Callee)))
        continue;
      ++Findings.NestedSameType;
      report(OS, Call.At, "warning",
             "'" + Holder.Name + "' holds a lock of type " +
                 quotedType(Holder) + " and calls '" + Callee.Name +
                 "', which takes another lock of that type: two such calls "
                 "with their keys in opposite orders deadlock; take both "
                 "locks in one call with distlock::per_key");
      report(OS, Callee.At, "note",
             "'" + Callee.Name + "' takes its lock of type " +
                 quotedType(Callee) + " here");
    }
  for (const LockRecord &Holder : Locks) {
    if (!Holder.Coroutine)
      continue;
    std::vector<Nesting> Path = Calls.reentryOf(Holder);
    if (Path.empty())
      continue;
    ++Findings.CoroutineReentries;
    reportReentry(OS, Path);
  }
  for (const std::vector<Nesting> &Cycle : Graph.cycles()) {
    ++Findings.Cycles;
    std::string Types;
    for (const Nesting &Edge : Cycle)
      Types += quotedType(*Edge.Holder) + " -> ";
    Types += quotedType(*Cycle.front().Holder);
    report(OS, Cycle.front().Call->At, "error",
           "lock-order cycle " + Types +
               ": these calls, run at once, can deadlock each other; take "
               "these lock types in one order everywhere");
    for (const Nesting &Edge : Cycle)
      report(OS, Edge.Call->At, "note",
             "'" + Edge.Holder->Name + "' holds " + quotedType(*Edge.Holder) +
                 " and calls '" + Edge.Callee->Name + "' here, which takes " +
                 quotedType(*Edge.Callee));
  }
  return Findings;
}

} // namespace weave
} // namespace distlock
