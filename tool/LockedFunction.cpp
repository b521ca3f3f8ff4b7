// SPDX-License-Identifier: Apache-2.0
//===- LockedFunction.cpp - One function definition to weave --------------===//

#include "LockedFunction.h"

#include "AttributeArguments.h"
#include "Attributes.h"
#include "KeyPath.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"

using namespace clang;

namespace distlock {
namespace weave {

namespace {

class Analyzer {
public:
  Analyzer(const FunctionDecl &Definition, const AnnotateAttr &Lock,
           Diagnostics &Diags)
      : Definition(Definition), Lock(Lock), Diags(Diags),
        Context(Definition.getASTContext()), SM(Context.getSourceManager()) {}

  std::optional<LockedFunction> run() {
    LockedFunction Result;
    bool Ok = checkShape() && checkCoroutine(Result) &&
              readLockArguments(Result) && findBodyBrace(Result) &&
              readKeys(Result);
    if (!Ok)
      return std::nullopt;
    Result.Busy = busyReturn();
    return Result;
  }

private:
  SourceLocation lockLoc() const { return Lock.getLocation(); }

  bool fail(SourceLocation Loc, const llvm::Twine &Message) {
    Diags.error(Loc, Message);
    return false;
  }

  bool checkShape() {
    if (const auto *Method = dyn_cast<CXXMethodDecl>(&Definition)) {
      if (Method->getParent()->isLambda())
        return fail(lockLoc(),
                    "'distlock::lock' cannot be woven into a lambda; declare a "
                    "distlock::ScopedLock at the top of its body instead");
      if (Method->isVirtual())
        Diags.warning(lockLoc(),
                      "'" + Definition.getQualifiedNameAsString() +
                          "' is virtual: overriders are not locked unless "
                          "they carry [[distlock::lock]] themselves");
    }
    if (Definition.isDeleted() || Definition.isExplicitlyDefaulted())
      return fail(
          lockLoc(),
          "'distlock::lock' on a " +
              llvm::Twine(Definition.isDeleted() ? "deleted" : "defaulted") +
              " function: there is no body to lock; write the body or "
              "remove the attribute");
    if (Definition.isConsteval() || Definition.isConstexpr())
      return fail(lockLoc(),
                  "'distlock::lock' on a " +
                      llvm::Twine(Definition.isConsteval() ? "consteval"
                                                           : "constexpr") +
                      " function: a lock is taken at run time; remove " +
                      (Definition.isConsteval() ? "consteval" : "constexpr") +
                      " or the attribute");
    if (const auto *Type = Definition.getType()->getAs<FunctionProtoType>();
        Type && Type->isNothrow(/*ResultIfDependent=*/false))
      return fail(
          lockLoc(),
          "'distlock::lock' on a " +
              llvm::Twine(isa<CXXDestructorDecl>(Definition)
                              ? "destructor, which is noexcept"
                              : "noexcept function") +
              ": taking the lock can throw (LockTimeout, "
              "BackendUnavailable), which would end the program; "
              "lock in a function that may throw and call it from here, "
              "handling the error");
    return true;
  }

  /// A coroutine is woven when it is an Asio awaitable, whose guard can await
  /// its locks; any other kind is refused, saying which are known.
  bool checkCoroutine(LockedFunction &Result) {
    if (!isa_and_nonnull<CoroutineBodyStmt>(Definition.getBody()))
      return true;
    QualType Returned = Definition.getDeclaredReturnType();
    Result.Coroutine = asioAwaitableOf(Returned, Context);
    if (!Result.Coroutine)
      return fail(lockLoc(),
                  "'distlock::lock' on a coroutine returning '" +
                      Returned.getAsString(Context.getPrintingPolicy()) +
                      "', which distlock-weave cannot await in: it weaves "
                      "coroutines returning asio::awaitable<T> or "
                      "boost::asio::awaitable<T>; for another kind, take the "
                      "lock inside with Client::acquire_async");
    return true;
  }

  bool readLockArguments(LockedFunction &Result) {
    SourceLocation Loc = lockLoc();
    std::string Problem;
    auto Spelling =
        readAttributeSpelling(SM, Context.getLangOpts(), Loc, "lock", Problem);
    if (!Spelling)
      return fail(Loc, Problem);
    if (!Spelling->Arguments ||
        llvm::StringRef(Spelling->ArgumentText).trim().empty())
      return fail(Loc, "'distlock::lock' needs the lock type and ttl: write "
                       "[[distlock::lock(\"type\", 30s)]]");
    SourceLocation Begin = Spelling->Arguments->getBegin();
    PresumedLoc Presumed = SM.getPresumedLoc(Begin);
    Result.LockArguments.Text = Spelling->ArgumentText;
    Result.LockArguments.File = Presumed.getFilename();
    Result.LockArguments.Line = Presumed.getLine();
    Result.LockArguments.Column = Presumed.getColumn();
    return true;
  }

  bool findBodyBrace(LockedFunction &Result) {
    const Stmt *Body = Definition.getBody();
    // A coroutine's body as written: the compound statement it wraps.
    if (const auto *Coroutine = dyn_cast_or_null<CoroutineBodyStmt>(Body))
      Body = Coroutine->getBody();
    if (const auto *Try = dyn_cast_or_null<CXXTryStmt>(Body))
      Body = Try->getTryBlock();
    const auto *Compound = dyn_cast_or_null<CompoundStmt>(Body);
    if (!Compound && Definition.isLateTemplateParsed())
      return fail(lockLoc(),
                  "the body of '" + Definition.getQualifiedNameAsString() +
                      "' was not parsed: -fdelayed-template-parsing (the "
                      "default when targeting MSVC) leaves template bodies "
                      "unparsed until used; weave with "
                      "-fno-delayed-template-parsing");
    // A definition by an attribute, such as alias("target").
    if (!Compound)
      return fail(lockLoc(),
                  "'" + Definition.getQualifiedNameAsString() +
                      "' is defined without a body of its own, which a lock "
                      "could open; lock the function that has the body");
    SourceLocation Brace = Compound->getLBracLoc();
    if (Brace.isMacroID())
      return fail(Brace, "the body of '" +
                             Definition.getQualifiedNameAsString() +
                             "' comes from a macro expansion, where no guard "
                             "can be inserted; write the body's braces outside "
                             "the macro, or lock by hand with "
                             "distlock::ScopedLock");
    Result.BodyBrace = Brace;
    Result.Body = Compound;
    return true;
  }

  /// The key attribute of parameter \p Index on any declaration.
  const AnnotateAttr *keyOf(unsigned Index) {
    // Each written key with the parameter it is on; an inherited copy has the
    // location of the key it copies.
    llvm::SmallVector<std::pair<const AnnotateAttr *, const ParmVarDecl *>, 2>
        Keys;
    for (const FunctionDecl *Redecl : Definition.redecls()) {
      if (Index >= Redecl->getNumParams())
        continue;
      const ParmVarDecl *Param = Redecl->getParamDecl(Index);
      for (const AnnotateAttr *Key : distlockAttributes(Param, KeyAnnotation))
        if (llvm::none_of(Keys, [&](const auto &Seen) {
              return Seen.first->getLocation() == Key->getLocation();
            }))
          Keys.push_back({Key, Param});
    }
    if (Keys.empty())
      return nullptr;
    // The redeclarations come latest first: "second" is in reading order.
    llvm::sort(Keys, [&](const auto &A, const auto &B) {
      return SM.isBeforeInTranslationUnit(A.first->getLocation(),
                                          B.first->getLocation());
    });
    if (Keys.size() > 1) {
      const ParmVarDecl *Param = Keys[1].second;
      std::string Parameter = Param->getName().empty()
                                  ? std::to_string(Index + 1)
                                  : "'" + Param->getName().str() + "'";
      Diags.error(Keys[1].first->getLocation(),
                  "a second 'distlock::key' on parameter " + Parameter +
                      " of '" + Definition.getQualifiedNameAsString() +
                      "'; a parameter is one key: remove one");
      Diags.note(Keys[0].first->getLocation(), "the first is here");
      return nullptr;
    }
    return Keys[0].first;
  }

  bool readKeys(LockedFunction &Result) {
    bool Ok = true;
    for (unsigned I = 0, E = Definition.getNumParams(); I != E; ++I) {
      const AnnotateAttr *Key = keyOf(I);
      if (!Key)
        continue;
      std::string Path;
      std::optional<std::string> Expression = keyExpression(I, *Key, Path);
      if (!Expression) {
        Ok = false;
        continue;
      }
      Result.KeyExpressions.push_back(std::move(*Expression));
      Result.Keys.push_back(
          {Definition.getParamDecl(I)->getName().str(), I, std::move(Path)});
    }
    return Ok && !Diags.hasErrors();
  }

  std::optional<std::string> keyExpression(unsigned Index,
                                           const AnnotateAttr &Key,
                                           std::string &WrittenPath) {
    const ParmVarDecl *Param = Definition.getParamDecl(Index);
    SourceLocation Loc = Key.getLocation();
    // Reported where the attribute is blanked (Weaver.cpp).
    if (Loc.isMacroID())
      return std::nullopt;
    if (Param->getName().empty()) {
      fail(Param->getLocation(),
           "the key parameter " + llvm::Twine(Index + 1) +
               " has no name in this definition; name it");
      return std::nullopt;
    }
    std::string Problem;
    auto Spelling =
        readAttributeSpelling(SM, Context.getLangOpts(), Loc, "key", Problem);
    if (!Spelling) {
      fail(Loc, Problem);
      return std::nullopt;
    }
    if (!Spelling->Arguments)
      return Param->getName().str();

    SourceLocation PathLoc = Spelling->Arguments->getBegin();
    llvm::StringRef Written = llvm::StringRef(Spelling->ArgumentText).trim();
    if (Written.size() < 2 || !Written.starts_with("\"") ||
        !Written.ends_with("\"") ||
        Written.drop_front().drop_back().contains('"') ||
        Written.contains('\\')) {
      fail(PathLoc, "the key path must be one plain string literal naming a "
                    "field or const member function, such as \"id\", "
                    "\"customer.id\" or \"id()\"");
      return std::nullopt;
    }
    llvm::StringRef Path = Written.drop_front().drop_back();
    WrittenPath = Path.str();
    auto Segments = parseKeyPath(Path);
    if (!Segments) {
      fail(PathLoc, "'" + Path +
                        "' is not a key path: write member names separated "
                        "by '.', each optionally followed by '()'");
      return std::nullopt;
    }
    auto Expression = weave::keyExpression(Param->getName(), Param->getType(),
                                           *Segments, Problem);
    if (!Expression) {
      fail(PathLoc, "key path '" + Path + "' of parameter '" +
                        Param->getName() + "': " + Problem);
      return std::nullopt;
    }
    return Expression;
  }

  BusyReturn busyReturn() const {
    BusyReturn Busy;
    if (isa<CXXConstructorDecl, CXXDestructorDecl>(Definition) ||
        Definition.getDeclaredReturnType()->getContainedDeducedType())
      return Busy;
    // As written, so that it names what the body can see: a typedef, a
    // template parameter, a member type of the function's class.
    Busy.ResultType = Definition.getDeclaredReturnType().getAsString(
        Context.getPrintingPolicy());
    const auto *Method = dyn_cast<CXXMethodDecl>(&Definition);
    Busy.OnThis = Method && Method->isInstance();
    if (Definition.isVariadic())
      return Busy;
    std::vector<ForwardedParameter> Parameters;
    for (const ParmVarDecl *Param : Definition.parameters()) {
      if (Param->getName().empty())
        return Busy;
      Parameters.push_back({Param->getName().str(), Param->isParameterPack()});
    }
    Busy.Parameters = std::move(Parameters);
    return Busy;
  }

  const FunctionDecl &Definition;
  const AnnotateAttr &Lock;
  Diagnostics &Diags;
  ASTContext &Context;
  const SourceManager &SM;
};

} // namespace

std::optional<CoroutineReturn> asioAwaitableOf(QualType Returned,
                                               const ASTContext &Context) {
  const auto *Written = Returned->getAs<TemplateSpecializationType>();
  if (!Written || Written->template_arguments().empty())
    return std::nullopt;
  const TemplateDecl *Template = Written->getTemplateName().getAsTemplateDecl();
  if (!Template)
    return std::nullopt;
  const std::string Name = Template->getQualifiedNameAsString();
  if (Name != "asio::awaitable" && Name != "boost::asio::awaitable")
    return std::nullopt;
  const TemplateArgument &Value = Written->template_arguments()[0];
  if (Value.getKind() != TemplateArgument::Type)
    return std::nullopt;
  return CoroutineReturn{
      Value.getAsType().getAsString(Context.getPrintingPolicy()),
      Name == "boost::asio::awaitable"};
}

std::optional<LockedFunction>
analyzeLockedFunction(const FunctionDecl &Definition, const AnnotateAttr &Lock,
                      Diagnostics &Diags) {
  return Analyzer(Definition, Lock, Diags).run();
}

} // namespace weave
} // namespace distlock
