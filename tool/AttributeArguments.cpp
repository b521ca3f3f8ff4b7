// SPDX-License-Identifier: Apache-2.0
//===- AttributeArguments.cpp - Reading distlock attribute arguments ------===//

#include "AttributeArguments.h"

#include "clang/Lex/Lexer.h"
#include "llvm/ADT/SmallVector.h"

using namespace clang;

namespace distlock {
namespace weave {

namespace {

class RawTokenReader {
public:
  RawTokenReader(const SourceManager &SM, const LangOptions &LangOpts,
                 SourceLocation Start)
      : SM(&SM), LangOpts(&LangOpts), Next(Start) {}

  /// The next token that is not a comment (the raw lexer keeps comments).
  /// False at the end of the file or on a token the raw lexer cannot form.
  bool read(Token &Result) {
    do {
      if (Lexer::getRawToken(Next, Result, *SM, *LangOpts,
                             /*IgnoreWhiteSpace=*/true))
        return false;
      Next = Result.getEndLoc();
    } while (Result.is(tok::comment));
    return Result.isNot(tok::eof);
  }

  std::string spelling(const Token &T) const {
    return Lexer::getSpelling(T, *SM, *LangOpts);
  }

private:
  const SourceManager *SM;
  const LangOptions *LangOpts;
  SourceLocation Next;
};

} // namespace

std::optional<AttributeSpelling>
readAttributeSpelling(const SourceManager &SM, const LangOptions &LangOpts,
                      SourceLocation ScopeLoc, llvm::StringRef Name,
                      std::string &Problem) {
  RawTokenReader Reader(SM, LangOpts, ScopeLoc);
  Token Scope, Colons, AttrName;
  if (!Reader.read(Scope) || !Reader.read(Colons) || !Reader.read(AttrName) ||
      Reader.spelling(Scope) != "distlock" || Colons.isNot(tok::coloncolon) ||
      Reader.spelling(AttrName) != Name) {
    Problem = ("expected 'distlock::" + Name + "' here").str();
    return std::nullopt;
  }

  AttributeSpelling Result;
  Result.Whole = SourceRange(Scope.getLocation(), AttrName.getLocation());

  Token Open;
  RawTokenReader Lookahead = Reader;
  if (!Lookahead.read(Open) || Open.isNot(tok::l_paren))
    return Result;
  Reader = Lookahead;

  // The closers still owed, innermost last; the outermost is the ')' that ends
  // the arguments.
  llvm::SmallVector<tok::TokenKind, 8> Closers = {tok::r_paren};
  Token T;
  SourceLocation FirstInside, LastInside;
  while (true) {
    if (!Reader.read(T)) {
      Problem = ("unbalanced parentheses in the arguments of distlock::" + Name)
                    .str();
      return std::nullopt;
    }
    if (T.isOneOf(tok::r_paren, tok::r_square, tok::r_brace)) {
      if (T.getKind() != Closers.back()) {
        Problem = ("mismatched '" + Reader.spelling(T) +
                   "' in the arguments of distlock::" + Name)
                      .str();
        return std::nullopt;
      }
      Closers.pop_back();
      if (Closers.empty())
        break;
    } else if (T.is(tok::l_paren)) {
      Closers.push_back(tok::r_paren);
    } else if (T.is(tok::l_square)) {
      Closers.push_back(tok::r_square);
    } else if (T.is(tok::l_brace)) {
      Closers.push_back(tok::r_brace);
    }
    if (FirstInside.isInvalid())
      FirstInside = T.getLocation();
    LastInside = T.getLocation();
  }
  Result.Whole.setEnd(T.getLocation());
  if (FirstInside.isValid()) {
    Result.Arguments = SourceRange(FirstInside, LastInside);
    Result.ArgumentText =
        Lexer::getSourceText(CharSourceRange::getTokenRange(*Result.Arguments),
                             SM, LangOpts)
            .str();
  } else {
    Result.Arguments = SourceRange(T.getLocation(), T.getLocation());
  }
  return Result;
}

} // namespace weave
} // namespace distlock
