// SPDX-License-Identifier: Apache-2.0
//===- LockRecorder.cpp - What the lock inventory says of one function ----===//

#include "LockRecorder.h"

#include "CoroutineBody.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Index/USRGeneration.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace distlock {
namespace weave {

namespace {

std::string usrOf(const FunctionDecl &Function) {
  llvm::SmallString<128> Usr;
  if (index::generateUSRForDecl(&Function, Usr))
    return Function.getQualifiedNameAsString();
  return Usr.str().str();
}

/// The function as written: a call of a template's instance names the
/// template, which is what the weaver wove.
const FunctionDecl &pattern(const FunctionDecl &Function) {
  if (const FunctionDecl *Pattern = Function.getTemplateInstantiationPattern())
    return *Pattern;
  return Function;
}

SourcePlace placeOf(const SourceManager &SM, SourceLocation Loc) {
  PresumedLoc Presumed = SM.getPresumedLoc(SM.getExpansionLoc(Loc));
  if (Presumed.isInvalid())
    return {};
  return {Presumed.getFilename(), Presumed.getLine(), Presumed.getColumn()};
}

class CallCollector : public RecursiveASTVisitor<CallCollector> {
public:
  CallCollector(ASTContext &Context, const Stmt &Body,
                std::vector<CallRecord> &Calls)
      : Context(Context), SM(Context.getSourceManager()), Calls(Calls) {
    for (const BodyCall &Call : callsInBody(Body))
      if (Call.AwaitedBy && !Call.InNestedFunction)
        Awaited.insert(Call.Call);
  }

  bool VisitCallExpr(CallExpr *Call) {
    if (const FunctionDecl *Callee = Call->getDirectCallee()) {
      llvm::ArrayRef<const Expr *> Arguments(Call->getArgs(),
                                             Call->getNumArgs());
      // An operator that is a member takes its object as the first operand.
      if (isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) &&
          !Arguments.empty())
        Arguments = Arguments.drop_front();
      record(*Callee, Call->getExprLoc(), Arguments, Awaited.count(Call));
    }
    return true;
  }

  bool VisitCXXConstructExpr(CXXConstructExpr *Construct) {
    record(*Construct->getConstructor(), Construct->getLocation(),
           llvm::ArrayRef<const Expr *>(Construct->getArgs(),
                                        Construct->getNumArgs()),
           /*Awaited=*/false);
    return true;
  }

private:
  void record(const FunctionDecl &Callee, SourceLocation At,
              llvm::ArrayRef<const Expr *> Arguments, bool Awaited) {
    const FunctionDecl &Written = pattern(Callee);
    if (Written.isImplicit() || SM.isInSystemHeader(Written.getLocation()))
      return;
    CallRecord Call{Written.getQualifiedNameAsString(),
                    usrOf(Written),
                    placeOf(SM, At),
                    {},
                    Awaited};
    for (const Expr *Argument : Arguments)
      Call.Arguments.push_back(
          Lexer::getSourceText(
              CharSourceRange::getTokenRange(Argument->getSourceRange()), SM,
              Context.getLangOpts())
              .trim()
              .str());
    Calls.push_back(std::move(Call));
  }

  ASTContext &Context;
  const SourceManager &SM;
  std::vector<CallRecord> &Calls;
  /// The calls the function, a coroutine, awaits itself.
  llvm::DenseSet<const CallExpr *> Awaited;
};

} // namespace

LockRecord recordLock(const FunctionDecl &Definition,
                      const LockedFunction &Locked) {
  ASTContext &Context = Definition.getASTContext();
  const SourceManager &SM = Context.getSourceManager();
  LockRecord Record;
  Record.Name = Definition.getQualifiedNameAsString();
  Record.Usr = usrOf(Definition);
  std::vector<std::string> Arguments =
      splitArguments(Locked.LockArguments.Text);
  if (!Arguments.empty()) {
    Record.TypeAsWritten = Arguments[0];
    Record.Type = plainStringLiteral(Arguments[0]);
  }
  if (Arguments.size() > 1)
    Record.Ttl = Arguments[1];
  for (size_t I = 2; I < Arguments.size(); ++I)
    Record.Options.push_back(Arguments[I]);
  Record.Keys = Locked.Keys;
  Record.At = placeOf(SM, Definition.getLocation());
  Record.Coroutine = Locked.Coroutine.has_value();
  CallCollector Collector(Context, *Definition.getBody(), Record.Calls);
  Collector.TraverseStmt(Definition.getBody());
  return Record;
}

} // namespace weave
} // namespace distlock
