// SPDX-License-Identifier: Apache-2.0
//===- Weaver.cpp - Weaving lock guards into one translation unit ---------===//

#include "Weaver.h"

#include "AttributeArguments.h"
#include "Attributes.h"
#include "CoroutineBody.h"
#include "Diagnostics.h"
#include "GuardText.h"
#include "LockRecorder.h"
#include "LockedFunction.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace distlock {
namespace weave {

namespace {

class FunctionCollector : public RecursiveASTVisitor<FunctionCollector> {
public:
  bool VisitFunctionDecl(FunctionDecl *FD) {
    Functions.push_back(FD);
    return true;
  }
  // A lambda's call operator is implicit code, which the traversal skips.
  bool VisitLambdaExpr(LambdaExpr *Lambda) {
    Functions.push_back(Lambda->getCallOperator());
    return true;
  }
  std::vector<const FunctionDecl *> Functions;
};

class TranslationUnitWeaver {
public:
  TranslationUnitWeaver(ASTContext &Context, Rewriter &Rewrite,
                        WeaveSummary &Summary)
      : Context(Context), SM(Context.getSourceManager()), Rewrite(Rewrite),
        Summary(Summary), Diags(Context.getDiagnostics()) {}

  void run() {
    FunctionCollector Collector;
    Collector.TraverseDecl(Context.getTranslationUnitDecl());
    for (const FunctionDecl *FD : Collector.Functions) {
      checkAttributesOf(*FD);
      if (FD->isThisDeclarationADefinition())
        weaveDefinition(*FD);
    }
  }

private:
  void checkAttributesOf(const FunctionDecl &FD) {
    auto Locks = writtenAttributes(&FD, LockAnnotation);
    for (const AnnotateAttr *Lock : Locks)
      blank(*Lock, "lock", "function");
    if (FD.isPure() && !Locks.empty() && !Locks[0]->getLocation().isMacroID())
      Diags.error(Locks[0]->getLocation(),
                  "'distlock::lock' on the pure virtual function '" +
                      FD.getQualifiedNameAsString() +
                      "': it has no body to lock, and its overriders are not "
                      "locked by it; put the attribute on each overrider");
    for (const ParmVarDecl *Param : FD.parameters())
      for (const AnnotateAttr *Key : writtenAttributes(Param, KeyAnnotation)) {
        blank(*Key, "key", "parameter");
        if (lockAttributesOf(FD).empty())
          Diags.warning(Key->getLocation(),
                        "'distlock::key' on a parameter of '" +
                            FD.getQualifiedNameAsString() +
                            "', which has no [[distlock::lock]]: it has no "
                            "effect; add the lock or remove the key");
      }
  }

  void weaveDefinition(const FunctionDecl &Definition) {
    auto Locks = lockAttributesOf(Definition);
    if (Locks.empty())
      return;
    // Written in a macro: reported where it is blanked.
    if (Locks[0]->getLocation().isMacroID())
      return;
    if (Locks.size() > 1) {
      Diags.error(Locks[1]->getLocation(),
                  "a second 'distlock::lock' for '" +
                      Definition.getQualifiedNameAsString() +
                      "'; a function takes one lock: remove one");
      Diags.note(Locks[0]->getLocation(), "the first is here");
      return;
    }
    auto Locked = analyzeLockedFunction(Definition, *Locks[0], Diags);
    if (!Locked)
      return;
    if (Locked->Coroutine) {
      checkCoroutineReentry(Definition, *Locked, Diags);
      rewriteLeaseCalls(Definition, *Locked, Rewrite, Diags);
    }
    PresumedLoc Body = SM.getPresumedLoc(Locked->BodyBrace);
    GuardParts Parts{Locked->LockArguments, Locked->KeyExpressions,
                     Locked->Busy,          Locked->Coroutine,
                     Body.getFilename(),    Body.getLine()};
    Rewrite.InsertTextAfterToken(Locked->BodyBrace, guardText(Parts));
    ++Summary.WovenFunctions;
    Summary.Locks.push_back(recordLock(Definition, *Locked));
    Summary.GuardedFiles.try_emplace(SM.getFileID(Locked->BodyBrace),
                                     Locked->BodyBrace);
    if (Locked->Coroutine)
      Summary.AwaitingFiles[SM.getFileID(Locked->BodyBrace)].insert(
          Locked->Coroutine->BoostAsio ? WovenBoostAsioHeader
                                       : WovenAsioHeader);
  }

  /// Replaces the attribute by spaces, keeping its line breaks, so the
  /// compiler never sees it and no line moves. One written in a macro cannot
  /// be blanked, on a declaration as on a definition (whose body it could not
  /// lock either), so it is an error wherever it is.
  void blank(const AnnotateAttr &Attr, llvm::StringRef Name,
             llvm::StringRef AppliesTo) {
    SourceLocation Loc = Attr.getLocation();
    if (!Blanked.insert(Loc).second)
      return;
    if (Loc.isMacroID()) {
      Diags.error(Loc, "'distlock::" + Name +
                           "' written in a macro; write the attribute itself "
                           "on the " +
                           AppliesTo);
      return;
    }
    std::string Problem;
    auto Spelling =
        readAttributeSpelling(SM, Context.getLangOpts(), Loc, Name, Problem);
    if (!Spelling)
      return;
    CharSourceRange Range = CharSourceRange::getTokenRange(Spelling->Whole);
    std::string Spaces =
        Lexer::getSourceText(Range, SM, Context.getLangOpts()).str();
    for (char &C : Spaces)
      if (C != '\n' && C != '\r')
        C = ' ';
    Rewrite.ReplaceText(Range, Spaces);
  }

  ASTContext &Context;
  const SourceManager &SM;
  Rewriter &Rewrite;
  WeaveSummary &Summary;
  Diagnostics Diags;
  llvm::DenseSet<SourceLocation> Blanked;
};

} // namespace

void Weaver::HandleTranslationUnit(ASTContext &Context) {
  TranslationUnitWeaver(Context, Rewrite, Summary).run();
}

} // namespace weave
} // namespace distlock
