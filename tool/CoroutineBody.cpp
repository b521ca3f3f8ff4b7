// SPDX-License-Identifier: Apache-2.0
//===- CoroutineBody.cpp - A woven coroutine's lease and reentries --------===//

#include "CoroutineBody.h"

#include "AttributeArguments.h"
#include "Attributes.h"
#include "GuardText.h"
#include "LockInventory.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace distlock {
namespace weave {

namespace {

/// The call a co_await awaits, under the temporaries and parentheses around
/// it.
const CallExpr *awaitedCall(const CoawaitExpr &Await) {
  const Expr *Operand = Await.getOperand()->IgnoreImplicit();
  return dyn_cast<CallExpr>(Operand->IgnoreParens()->IgnoreImplicit());
}

class BodyCallCollector : public RecursiveASTVisitor<BodyCallCollector> {
  using Base = RecursiveASTVisitor<BodyCallCollector>;

public:
  /// A lambda's captures are initialized in the body; its own body is a
  /// function of its own.
  bool TraverseLambdaExpr(LambdaExpr *Lambda) {
    for (unsigned I = 0, E = Lambda->capture_size(); I != E; ++I) {
      const LambdaCapture *Capture = Lambda->capture_begin() + I;
      if (Capture->isExplicit() &&
          !TraverseLambdaCapture(Lambda, Capture,
                                 Lambda->capture_init_begin()[I]))
        return false;
    }
    ++NestingDepth;
    bool Continue = TraverseStmt(Lambda->getBody());
    --NestingDepth;
    return Continue;
  }

  bool TraverseCXXRecordDecl(CXXRecordDecl *Class) {
    ++NestingDepth;
    bool Continue = Base::TraverseCXXRecordDecl(Class);
    --NestingDepth;
    return Continue;
  }

  // Visited before its operand, whose call then finds itself awaited.
  bool VisitCoawaitExpr(CoawaitExpr *Await) {
    if (const CallExpr *Call = awaitedCall(*Await))
      AwaitedBy[Call] = Await;
    return true;
  }

  bool VisitCallExpr(CallExpr *Call) {
    Calls.push_back({Call, NestingDepth > 0, AwaitedBy.lookup(Call)});
    return true;
  }

  std::vector<BodyCall> Calls;

private:
  unsigned NestingDepth = 0;
  llvm::DenseMap<const CallExpr *, const CoawaitExpr *> AwaitedBy;
};

/// A function declared directly in namespace distlock.
bool isInDistlockNamespace(const FunctionDecl &Function) {
  const auto *Namespace =
      dyn_cast<NamespaceDecl>(Function.getDeclContext()->getRedeclContext());
  return Namespace && Namespace->getName() == "distlock" &&
         Namespace->getDeclContext()->getRedeclContext()->isTranslationUnit();
}

bool isLeaseFunction(const NamedDecl *Candidate, const LeaseFunction &Lease) {
  const FunctionDecl *Function =
      Candidate ? Candidate->getUnderlyingDecl()->getAsFunction() : nullptr;
  return Function && Function->getIdentifier() &&
         Function->getName() == Lease.Name &&
         Function->getNumParams() == Lease.Parameters &&
         isInDistlockNamespace(*Function);
}

/// What a call of a lease function names it by: the qualifier and the name,
/// without template arguments.
struct CalleeName {
  SourceRange Range;
  const LeaseFunction *Function = nullptr;
};

template <class NameExpr> SourceRange rangeOfName(const NameExpr &Name) {
  SourceLocation Begin = Name.getQualifierLoc()
                             ? Name.getQualifierLoc().getBeginLoc()
                             : Name.getNameInfo().getBeginLoc();
  return {Begin, Name.getNameInfo().getEndLoc()};
}

/// The lease function \p Call calls, matched by the declaration its name
/// resolves to (in a template, to any of the candidates), so that a call
/// through `using namespace distlock` is one too.
std::optional<CalleeName> leaseFunctionCalled(const CallExpr &Call) {
  const Expr *Callee = Call.getCallee()->IgnoreParenImpCasts();
  for (const LeaseFunction &Lease : LeaseFunctions) {
    if (Call.getNumArgs() != Lease.Parameters)
      continue;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Callee)) {
      if (isLeaseFunction(Ref->getDecl(), Lease))
        return CalleeName{rangeOfName(*Ref), &Lease};
    } else if (const auto *Overloads = dyn_cast<OverloadExpr>(Callee)) {
      if (llvm::any_of(Overloads->decls(), [&](const NamedDecl *Candidate) {
            return isLeaseFunction(Candidate, Lease);
          }))
        return CalleeName{rangeOfName(*Overloads), &Lease};
    }
  }
  return std::nullopt;
}

class LeaseCallRewriter {
public:
  LeaseCallRewriter(const FunctionDecl &Definition, Rewriter &Rewrite,
                    Diagnostics &Diags)
      : Definition(Definition), Context(Definition.getASTContext()),
        Rewrite(Rewrite), Diags(Diags) {}

  void rewrite(const BodyCall &Body) {
    std::optional<CalleeName> Callee = leaseFunctionCalled(*Body.Call);
    if (!Callee)
      return;
    if (Body.InNestedFunction) {
      warnNested(*Body.Call, *Callee->Function);
      return;
    }
    CharSourceRange Name = fileRange(Callee->Range);
    std::optional<SourceLocation> Arguments = argumentsStart(*Body.Call);
    if (Name.isInvalid() || !Arguments) {
      warnInMacro(*Body.Call, *Callee->Function);
      return;
    }
    Rewrite.ReplaceText(Name, guardLeaseFunction(Callee->Function->Name));
    Rewrite.InsertTextBefore(*Arguments, Body.Call->getNumArgs() == 0
                                             ? GuardVariable.str()
                                             : (GuardVariable + ", ").str());
  }

private:
  CharSourceRange fileRange(SourceRange Range) const {
    return Lexer::makeFileCharRange(CharSourceRange::getTokenRange(Range),
                                    Context.getSourceManager(),
                                    Context.getLangOpts());
  }

  /// Where the guard goes among the arguments: before the first, or the ')'.
  std::optional<SourceLocation> argumentsStart(const CallExpr &Call) const {
    SourceRange First = Call.getNumArgs() == 0
                            ? SourceRange(Call.getRParenLoc())
                            : Call.getArg(0)->getSourceRange();
    CharSourceRange Range = fileRange(First);
    if (Range.isInvalid())
      return std::nullopt;
    return Range.getBegin();
  }

  void warnNested(const CallExpr &Call, const LeaseFunction &Function) {
    Diags.warning(Call.getBeginLoc(),
                  "'distlock::" + Function.Name +
                      "' in a lambda or local class of the woven coroutine '" +
                      Definition.getQualifiedNameAsString() +
                      "' sees this thread's lease, not the coroutine's: a "
                      "coroutine's lease belongs to no thread, and only calls "
                      "in its own body are pointed at it; " +
                      whatToDo(Function));
  }

  void warnInMacro(const CallExpr &Call, const LeaseFunction &Function) {
    Diags.warning(Call.getBeginLoc(),
                  "'distlock::" + Function.Name +
                      "' in a macro in the woven coroutine '" +
                      Definition.getQualifiedNameAsString() +
                      "' cannot be pointed at the coroutine's lease and sees "
                      "this thread's, which has none of the coroutine's; call "
                      "it outside the macro");
  }

  static llvm::StringRef whatToDo(const LeaseFunction &Function) {
    if (Function.Parameters == 0)
      return "call it in the body and capture what it returns";
    return "capture distlock::current() from the body and call "
           "distlock::checked(*lease, op, undo)";
  }

  const FunctionDecl &Definition;
  ASTContext &Context;
  Rewriter &Rewrite;
  Diagnostics &Diags;
};

/// The lock type of the function \p Callee, when it is a woven one whose
/// attribute can be read.
std::optional<std::string> lockTypeOf(const FunctionDecl &Callee) {
  auto Locks = lockAttributesOf(Callee);
  if (Locks.empty() || Locks.front()->getLocation().isMacroID())
    return std::nullopt;
  const ASTContext &Context = Callee.getASTContext();
  std::string Problem;
  auto Spelling =
      readAttributeSpelling(Context.getSourceManager(), Context.getLangOpts(),
                            Locks.front()->getLocation(), "lock", Problem);
  if (!Spelling)
    return std::nullopt;
  return lockTypeAsWritten(Spelling->ArgumentText);
}

class ReentryChecker {
public:
  ReentryChecker(const FunctionDecl &Definition, const LockedFunction &Locked,
                 Diagnostics &Diags)
      : Definition(Definition), Diags(Diags),
        OwnType(lockTypeAsWritten(Locked.LockArguments.Text)) {}

  void check(const BodyCall &Body) {
    if (Body.InNestedFunction)
      return;
    const FunctionDecl *Callee = Body.Call->getDirectCallee();
    if (!Callee)
      return;
    if (const FunctionDecl *Pattern = Callee->getTemplateInstantiationPattern())
      Callee = Pattern;
    std::optional<std::string> CalleeType = lockTypeOf(*Callee);
    if (!CalleeType ||
        lockTypeIdentity(*CalleeType) != lockTypeIdentity(OwnType))
      return;
    // A coroutine's lock is taken when it is awaited: one merely called
    // (spawned, stored) does not take it inside this one.
    bool CalleeAwaits = asioAwaitableOf(Callee->getDeclaredReturnType(),
                                        Callee->getASTContext())
                            .has_value();
    if (CalleeAwaits && !Body.AwaitedBy)
      return;
    report(Body, *Callee, CalleeAwaits);
  }

private:
  void report(const BodyCall &Body, const FunctionDecl &Callee,
              bool CalleeAwaits) {
    const std::string Name = Callee.getQualifiedNameAsString();
    Diags.error(
        CalleeAwaits ? Body.AwaitedBy->getBeginLoc() : Body.Call->getBeginLoc(),
        "'" + Definition.getQualifiedNameAsString() +
            "' holds its lock of type " + OwnType + " and " +
            (CalleeAwaits ? "awaits" : "calls") + " '" + Name +
            "', which takes a lock of that type" +
            (CalleeAwaits ? "" : " on this thread") +
            ": a coroutine's lease belongs to no thread and is not re-entered, "
            "so with the same key the " +
            (CalleeAwaits ? "await" : "call") +
            " would wait for the coroutine itself until the spec's wait runs "
            "out; do that work in a function without [[distlock::lock]], or " +
            (CalleeAwaits ? "await" : "call") + " '" + Name +
            "' before or after '" + Definition.getQualifiedNameAsString() +
            "' rather than inside it");
    Diags.note(lockAttributesOf(Callee).front()->getLocation(),
               "'" + Name + "' takes its lock here");
  }

  const FunctionDecl &Definition;
  Diagnostics &Diags;
  const std::string OwnType;
};

} // namespace

std::vector<BodyCall> callsInBody(const Stmt &Body) {
  BodyCallCollector Collector;
  Collector.TraverseStmt(const_cast<Stmt *>(&Body));
  return std::move(Collector.Calls);
}

void rewriteLeaseCalls(const FunctionDecl &Definition,
                       const LockedFunction &Locked, Rewriter &Rewrite,
                       Diagnostics &Diags) {
  LeaseCallRewriter Rewriter(Definition, Rewrite, Diags);
  for (const BodyCall &Call : callsInBody(*Locked.Body))
    Rewriter.rewrite(Call);
}

void checkCoroutineReentry(const FunctionDecl &Definition,
                           const LockedFunction &Locked, Diagnostics &Diags) {
  ReentryChecker Checker(Definition, Locked, Diags);
  for (const BodyCall &Call : callsInBody(*Locked.Body))
    Checker.check(Call);
}

} // namespace weave
} // namespace distlock
