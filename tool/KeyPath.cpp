// SPDX-License-Identifier: Apache-2.0
//===- KeyPath.cpp - Field paths of [[distlock::key("path")]] -------------===//

#include "KeyPath.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/PrettyPrinter.h"
#include "clang/Basic/CharInfo.h"
#include "llvm/ADT/STLFunctionalExtras.h"

using namespace clang;

namespace distlock {
namespace weave {

std::optional<llvm::SmallVector<KeyPathSegment, 4>>
parseKeyPath(llvm::StringRef Path) {
  llvm::SmallVector<KeyPathSegment, 4> Segments;
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Path.split(Parts, '.');
  for (llvm::StringRef Part : Parts) {
    KeyPathSegment Segment;
    if (Part.consume_back("()"))
      Segment.IsCall = true;
    if (!isValidAsciiIdentifier(Part))
      return std::nullopt;
    Segment.Name = Part.str();
    Segments.push_back(std::move(Segment));
  }
  return Segments;
}

namespace {

/// The first member of \p Record, or else of its bases, that \p Matches.
template <class Member>
const Member *
findInClassOrBases(const CXXRecordDecl *Record,
                   llvm::function_ref<const Member *(const Decl *)> Matches) {
  for (const Decl *Candidate : Record->decls())
    if (const Member *Found = Matches(Candidate))
      return Found;
  for (const CXXBaseSpecifier &Base : Record->bases())
    if (const auto *BaseRecord = Base.getType()->getAsCXXRecordDecl())
      if (BaseRecord->hasDefinition())
        if (const Member *Found =
                findInClassOrBases(BaseRecord->getDefinition(), Matches))
          return Found;
  return nullptr;
}

bool isNamed(const NamedDecl *D, llvm::StringRef Name) {
  return D->getDeclName().isIdentifier() && D->getName() == Name;
}

/// The field or member function named \p Name.
const NamedDecl *findMember(const CXXRecordDecl *Record, llvm::StringRef Name) {
  return findInClassOrBases<NamedDecl>(
      Record, [&](const Decl *D) -> const NamedDecl * {
        const auto *Named = dyn_cast<NamedDecl>(D);
        if (Named && isNamed(Named, Name) &&
            (isa<FieldDecl>(Named) || isa<CXXMethodDecl>(Named) ||
             isa<FunctionTemplateDecl>(Named)))
          return Named;
        return nullptr;
      });
}

/// A const member function callable without arguments, among the overloads.
const CXXMethodDecl *findConstGetter(const CXXRecordDecl *Record,
                                     llvm::StringRef Name) {
  return findInClassOrBases<CXXMethodDecl>(
      Record, [&](const Decl *D) -> const CXXMethodDecl * {
        const auto *Method = dyn_cast<CXXMethodDecl>(D);
        if (Method && isNamed(Method, Name) &&
            Method->getMinRequiredArguments() == 0 &&
            (Method->isConst() || Method->isStatic()))
          return Method;
        return nullptr;
      });
}

std::string typeName(QualType T) {
  PrintingPolicy Policy{LangOptions()};
  Policy.SuppressTagKeyword = true;
  return T.getUnqualifiedType().getAsString(Policy);
}

} // namespace

std::optional<std::string>
keyExpression(llvm::StringRef ParamName, QualType ParamType,
              llvm::ArrayRef<KeyPathSegment> Segments, std::string &Problem) {
  std::string Expression = ParamName.str();
  QualType Current = ParamType.getNonReferenceType();
  bool Dependent = false;
  for (const KeyPathSegment &Segment : Segments) {
    std::string Access = ".";
    if (!Dependent && Current->isPointerType()) {
      Access = "->";
      Current = Current->getPointeeType();
    }
    Expression += Access + Segment.Name + (Segment.IsCall ? "()" : "");
    if (Dependent || Current->isDependentType()) {
      Dependent = true;
      continue;
    }
    const CXXRecordDecl *Record = Current->getAsCXXRecordDecl();
    if (!Record) {
      Problem = "'" + typeName(Current) + "' has no member '" + Segment.Name +
                "': it is not a class";
      return std::nullopt;
    }
    if (!Record->hasDefinition()) {
      Problem = "'" + typeName(Current) +
                "' is incomplete here; include its definition";
      return std::nullopt;
    }
    Record = Record->getDefinition();
    const NamedDecl *Member = findMember(Record, Segment.Name);
    if (!Member) {
      Problem = "no member named '" + Segment.Name + "' in '" +
                typeName(Current) + "'";
      return std::nullopt;
    }
    if (const auto *Field = dyn_cast<FieldDecl>(Member)) {
      if (Segment.IsCall) {
        Problem = "'" + Segment.Name + "' in '" + typeName(Current) +
                  "' is a field, not a member function; write \"" +
                  Segment.Name + "\" without \"()\"";
        return std::nullopt;
      }
      Current = Field->getType().getNonReferenceType();
      continue;
    }
    if (!Segment.IsCall) {
      Problem = "'" + Segment.Name + "' in '" + typeName(Current) +
                "' is a member function; write \"" + Segment.Name + "()\"";
      return std::nullopt;
    }
    const CXXMethodDecl *Getter = findConstGetter(Record, Segment.Name);
    if (!Getter) {
      if (isa<FunctionTemplateDecl>(Member)) {
        Current = QualType();
        Dependent = true;
        continue;
      }
      Problem = "'" + typeName(Current) + "::" + Segment.Name +
                "' must be a const member function callable without "
                "arguments to key a lock";
      return std::nullopt;
    }
    Current = Getter->getReturnType().getNonReferenceType();
    if (Current->isUndeducedType())
      Dependent = true;
  }
  return Expression;
}

} // namespace weave
} // namespace distlock
