// SPDX-License-Identifier: Apache-2.0
//===- Attributes.cpp - Registering distlock::lock and distlock::key ------===//
//
// The registrations are static initializers in the distlockWeave library: an
// object file of a static library that nothing refers to is dropped by the
// linker, so ForceLinker.h refers to the anchor below.
//
//===----------------------------------------------------------------------===//

#include "Attributes.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"

using namespace clang;

namespace distlock {
namespace weave {

llvm::SmallVector<const AnnotateAttr *, 1>
distlockAttributes(const Decl *D, llvm::StringRef Annotation) {
  llvm::SmallVector<const AnnotateAttr *, 1> Found;
  for (const auto *A : D->specific_attrs<AnnotateAttr>())
    if (A->getAnnotation() == Annotation)
      Found.push_back(A);
  return Found;
}

llvm::SmallVector<const AnnotateAttr *, 1>
writtenAttributes(const Decl *D, llvm::StringRef Annotation) {
  llvm::SmallVector<const AnnotateAttr *, 1> Result;
  for (const AnnotateAttr *A : distlockAttributes(D, Annotation))
    if (!A->isInherited())
      Result.push_back(A);
  return Result;
}

llvm::SmallVector<const AnnotateAttr *, 1>
lockAttributesOf(const FunctionDecl &FD) {
  llvm::SmallVector<const AnnotateAttr *, 1> Locks;
  for (const FunctionDecl *Redecl : FD.getFirstDecl()->redecls())
    for (const AnnotateAttr *A : writtenAttributes(Redecl, LockAnnotation))
      if (llvm::none_of(Locks, [&](const AnnotateAttr *Seen) {
            return Seen->getLocation() == A->getLocation();
          }))
        Locks.push_back(A);
  return Locks;
}

namespace {

/// Clang skips the arguments of plugin attributes, so any number is accepted
/// here and the weaver reads them from the source.
class DistlockAttrInfo : public ParsedAttrInfo {
protected:
  DistlockAttrInfo(const Spelling *Spellings, llvm::StringLiteral Annotation)
      : Annotation(Annotation) {
    OptArgs = 15;
    this->Spellings = llvm::ArrayRef<Spelling>(Spellings, 1);
  }

  void misplaced(Sema &S, const ParsedAttr &Attr, llvm::StringRef What) const {
    unsigned ID =
        S.getDiagnostics().getCustomDiagID(DiagnosticsEngine::Error, "%0");
    S.Diag(Attr.getLoc(), ID) << What;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &Attr) const override {
    D->addAttr(AnnotateAttr::Create(S.Context, Annotation, nullptr, 0,
                                    Attr.getRange()));
    return AttributeApplied;
  }

private:
  llvm::StringLiteral Annotation;
};

constexpr ParsedAttrInfo::Spelling LockSpelling[] = {
    {ParsedAttr::AS_CXX11, "distlock::lock"}};
constexpr ParsedAttrInfo::Spelling KeySpelling[] = {
    {ParsedAttr::AS_CXX11, "distlock::key"}};

class LockAttrInfo : public DistlockAttrInfo {
public:
  LockAttrInfo() : DistlockAttrInfo(LockSpelling, LockAnnotation) {}

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr,
                            const Decl *D) const override {
    if (isa<FunctionDecl>(D))
      return true;
    misplaced(S, Attr,
              "'distlock::lock' applies to functions; put it on the function "
              "whose body must run under the lock");
    return false;
  }
};

class KeyAttrInfo : public DistlockAttrInfo {
public:
  KeyAttrInfo() : DistlockAttrInfo(KeySpelling, KeyAnnotation) {}

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &Attr,
                            const Decl *D) const override {
    if (isa<ParmVarDecl>(D))
      return true;
    misplaced(S, Attr,
              "'distlock::key' applies to function parameters; put it on the "
              "parameter that names the locked thing");
    return false;
  }
};

} // namespace

static ParsedAttrInfoRegistry::Add<LockAttrInfo>
    RegisterLock("distlock-lock", "[[distlock::lock(type, ttl, options...)]]");
static ParsedAttrInfoRegistry::Add<KeyAttrInfo>
    RegisterKey("distlock-key",
                "[[distlock::key]] / [[distlock::key(\"path\")]]");

// Referred to by ForceLinker.h; external linkage, so the reference resolves
// here.
volatile int AttributesAnchorSource = 0;

} // namespace weave
} // namespace distlock
