// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for distlock::weave::readAttributeSpelling (tool/AttributeArguments.cpp),
// the raw-lexer reader of `distlock::<name>(...)` in distlock-weave.
//
// Each input is read from an in-memory SourceManager (no file system) three ways:
//   1. the input bytes as the whole file, read as "lock" and as "key" from offset 0 and from
//      each of the first few places where "distlock" occurs in it;
//   2. "distlock::lock(" + input, read as "lock" (the arguments are the fuzzed bytes) and as
//      "key" (must be refused);
//   3. "distlock::key(" + input, read as "key".
// and every reading is checked against invariants that hold for any input:
//   - it returns (no crash, no hang: libFuzzer's -timeout), and a refusal says why;
//   - Whole starts at a 'distlock' token, at or after the requested location (the reader
//     skips whitespace and comments), and lies inside the buffer; with parentheses it
//     ends at a ')' token, without them at the attribute name;
//   - Arguments lies inside Whole; ArgumentText is exactly the buffer's text of Arguments, a
//     substring of the fuzzed bytes, and its ( [ { ) ] } tokens, lexed again on their own,
//     nest and balance;
//   - reading the same location again gives the same answer;
//   - the reading equals a reference one: a single raw lexer run over the buffer from the
//     same place, skipping whitespace and comments as the compiler does (same refusals,
//     same Whole, same Arguments, ArgumentText up to the end of the last token inside).
// A broken invariant prints what differs and aborts, so libFuzzer saves the input.

#include "AttributeArguments.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/FileSystemOptions.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Basic/LangStandard.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/TargetParser/Triple.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

using namespace clang;
using distlock::weave::AttributeSpelling;
using distlock::weave::readAttributeSpelling;

namespace {

// Where a reading starts: at most this many "distlock" occurrences after offset 0.
constexpr size_t kMaxStartsPerInput = 4;

struct Environment {
  Environment() {
    std::vector<std::string> Includes;
    LangOptions::setLangDefaults(LangOpts, Language::CXX, llvm::Triple(), Includes,
                                 LangStandard::lang_cxx20);
  }

  LangOptions LangOpts;
  IgnoringDiagConsumer DiagConsumer;
  DiagnosticsEngine Diags{llvm::IntrusiveRefCntPtr<DiagnosticIDs>(new DiagnosticIDs),
                          llvm::IntrusiveRefCntPtr<DiagnosticOptions>(new DiagnosticOptions),
                          &DiagConsumer, /*ShouldOwnClient=*/false};
  FileSystemOptions FSOpts;
  // Nothing is ever read from it: every buffer is handed to the SourceManager directly.
  FileManager Files{FSOpts, llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>()};
};

Environment& environment() {
  static Environment* Env = new Environment;  // Never destroyed: no exit-time order issues.
  return *Env;
}

std::string printable(llvm::StringRef Text) {
  std::string Out;
  for (unsigned char C : Text) {
    if (C >= 0x20 && C < 0x7f && C != '\\') {
      Out += static_cast<char>(C);
    } else {
      char Buf[8];
      std::snprintf(Buf, sizeof Buf, "\\x%02X", C);
      Out += Buf;
    }
  }
  return Out;
}

// One buffer under test: its text, the fuzzed bytes' place in it, and its FileID.
struct Buffer {
  llvm::StringRef Text;  // As the SourceManager holds it.
  size_t InputBegin;     // The fuzzed bytes are Text[InputBegin, Text.size()).
  FileID File;
  const char* Label;
};

[[noreturn]] void fail(const Buffer& B, size_t Offset, llvm::StringRef Name,
                       const std::string& What) {
  std::fprintf(stderr,
               "\nINVARIANT BROKEN (%s, reading distlock::%s at offset %zu): %s\n"
               "buffer: \"%s\"\n",
               B.Label, Name.str().c_str(), Offset, What.c_str(), printable(B.Text).c_str());
  std::abort();
}

// The offset of Loc in B's file; fails when Loc is elsewhere or past the end.
size_t offsetIn(const SourceManager& SM, const Buffer& B, SourceLocation Loc, size_t StartOffset,
                llvm::StringRef Name, const char* What) {
  if (Loc.isInvalid() || !Loc.isFileID())
    fail(B, StartOffset, Name, std::string(What) + " is not a valid file location");
  auto [File, Offset] = SM.getDecomposedLoc(Loc);
  if (File != B.File) fail(B, StartOffset, Name, std::string(What) + " is in another file");
  if (Offset >= B.Text.size())
    fail(B, StartOffset, Name,
         std::string(What) + " at offset " + std::to_string(Offset) + ", past the end (" +
             std::to_string(B.Text.size()) + " bytes)");
  return Offset;
}

// The raw token that starts at Offset (whitespace not skipped).
std::optional<Token> tokenAt(const SourceManager& SM, const LangOptions& LangOpts, const Buffer& B,
                             size_t Offset) {
  Token T;
  if (Lexer::getRawToken(SM.getLocForStartOfFile(B.File).getLocWithOffset(Offset), T, SM, LangOpts,
                         /*IgnoreWhiteSpace=*/false))
    return std::nullopt;
  return T;
}

// Lexes Text on its own and checks that its brackets nest; returns the problem, or an empty
// string. Also counts the tokens. The copy lexed starts with a space, so that a UTF-8 byte
// order mark at the start of Text is a token as it was in the buffer (the lexer skips one at
// the start of a buffer), and ends with the NUL the lexer requires.
std::string checkBalanced(const LangOptions& LangOpts, const std::string& Text, size_t& Tokens) {
  const std::string Copy = " " + Text;
  Lexer L(SourceLocation(), LangOpts, Copy.c_str(), Copy.c_str(), Copy.c_str() + Copy.size());
  llvm::SmallVector<tok::TokenKind, 16> Closers;
  Tokens = 0;
  Token T;
  while (true) {
    L.LexFromRawLexer(T);
    if (T.is(tok::eof)) break;
    ++Tokens;
    switch (T.getKind()) {
      case tok::l_paren:
        Closers.push_back(tok::r_paren);
        break;
      case tok::l_square:
        Closers.push_back(tok::r_square);
        break;
      case tok::l_brace:
        Closers.push_back(tok::r_brace);
        break;
      case tok::r_paren:
      case tok::r_square:
      case tok::r_brace:
        if (Closers.empty())
          return std::string("a closing ") + tok::getTokenName(T.getKind()) + " with nothing open";
        if (Closers.back() != T.getKind())
          return std::string("a closing ") + tok::getTokenName(T.getKind()) + " where " +
                 tok::getTokenName(Closers.back()) + " was owed";
        Closers.pop_back();
        break;
      default:
        break;
    }
  }
  if (!Closers.empty()) return std::to_string(Closers.size()) + " bracket(s) left open";
  return {};
}

bool sameRange(const std::optional<SourceRange>& A, const std::optional<SourceRange>& B) {
  if (A.has_value() != B.has_value()) return false;
  return !A || *A == *B;
}

// What the reader should find at Offset, worked out independently: one raw lexer run over
// the buffer from Offset, skipping whitespace and comments as the compiler does. Offsets
// into the buffer; std::nullopt where the reader should refuse.
struct Reading {
  size_t WholeBegin, WholeEnd;
  bool HasArguments;
  size_t ArgumentsBegin, ArgumentsEnd;  // The first and the last token inside (the ')' if none).
  size_t TextEnd;                       // The end of the last token inside.
};

std::optional<Reading> referenceReading(const SourceManager& SM, const LangOptions& LangOpts,
                                        const Buffer& B, size_t Offset, llvm::StringRef Name) {
  Lexer L(SM.getLocForStartOfFile(B.File), LangOpts, B.Text.begin(), B.Text.begin() + Offset,
          B.Text.end());
  Token T;
  auto Next = [&] {
    L.LexFromRawLexer(T);
    return T.isNot(tok::eof);
  };
  auto At = [&](const Token& Tok) { return size_t(SM.getFileOffset(Tok.getLocation())); };
  auto Spelling = [&](const Token& Tok) { return Lexer::getSpelling(Tok, SM, LangOpts); };

  Reading R{};
  if (!Next() || Spelling(T) != "distlock") return std::nullopt;
  R.WholeBegin = At(T);
  if (!Next() || T.isNot(tok::coloncolon) || !Next() || Spelling(T) != Name) return std::nullopt;
  R.WholeEnd = At(T);
  if (!Next() || T.isNot(tok::l_paren)) return R;

  R.HasArguments = true;
  llvm::SmallVector<tok::TokenKind, 16> Closers = {tok::r_paren};
  bool Inside = false;
  while (true) {
    if (!Next()) return std::nullopt;
    const tok::TokenKind Kind = T.getKind();
    if (Kind == tok::r_paren || Kind == tok::r_square || Kind == tok::r_brace) {
      if (Kind != Closers.back()) return std::nullopt;
      Closers.pop_back();
      if (Closers.empty()) break;
    } else if (Kind == tok::l_paren) {
      Closers.push_back(tok::r_paren);
    } else if (Kind == tok::l_square) {
      Closers.push_back(tok::r_square);
    } else if (Kind == tok::l_brace) {
      Closers.push_back(tok::r_brace);
    }
    if (!Inside) R.ArgumentsBegin = At(T);
    Inside = true;
    R.ArgumentsEnd = At(T);
    R.TextEnd = At(T) + T.getLength();
  }
  R.WholeEnd = At(T);
  if (!Inside) R.ArgumentsBegin = R.ArgumentsEnd = R.TextEnd = At(T);
  return R;
}

std::string describe(const std::optional<Reading>& R) {
  if (!R) return "refused";
  std::string Out =
      "Whole [" + std::to_string(R->WholeBegin) + ", " + std::to_string(R->WholeEnd) + "]";
  if (R->HasArguments)
    Out += ", Arguments [" + std::to_string(R->ArgumentsBegin) + ", " +
           std::to_string(R->ArgumentsEnd) + "], text up to " + std::to_string(R->TextEnd);
  else
    Out += ", no arguments";
  return Out;
}

void checkInvariants(const SourceManager& SM, const LangOptions& LangOpts, const Buffer& B,
                     size_t Offset, llvm::StringRef Name, const AttributeSpelling& S);

// Reads distlock::Name at Offset of B, twice, checks every invariant and compares the
// reading with referenceReading's. Returns whether the reading succeeded.
bool readAndCheck(const SourceManager& SM, const LangOptions& LangOpts, const Buffer& B,
                  size_t Offset, llvm::StringRef Name) {
  const SourceLocation Start = SM.getLocForStartOfFile(B.File).getLocWithOffset(Offset);
  std::string Problem;
  const std::optional<AttributeSpelling> Result =
      readAttributeSpelling(SM, LangOpts, Start, Name, Problem);

  // Determinism: the same location read again gives the same answer.
  std::string ProblemAgain;
  const std::optional<AttributeSpelling> Again =
      readAttributeSpelling(SM, LangOpts, Start, Name, ProblemAgain);
  if (Result.has_value() != Again.has_value() || Problem != ProblemAgain ||
      (Result &&
       (Result->Whole != Again->Whole || !sameRange(Result->Arguments, Again->Arguments) ||
        Result->ArgumentText != Again->ArgumentText)))
    fail(B, Offset, Name, "a second reading differs from the first");

  if (!Result) {
    if (Problem.empty()) fail(B, Offset, Name, "refused without saying why");
  } else {
    if (!Problem.empty()) fail(B, Offset, Name, "succeeded but set Problem: " + Problem);
    checkInvariants(SM, LangOpts, B, Offset, Name, *Result);
  }

  // The reference: same answer, same places.
  const std::optional<Reading> Expected = referenceReading(SM, LangOpts, B, Offset, Name);
  std::optional<Reading> Got;
  if (Result) {
    Got = Reading{};
    Got->WholeBegin = SM.getFileOffset(Result->Whole.getBegin());
    Got->WholeEnd = SM.getFileOffset(Result->Whole.getEnd());
    Got->HasArguments = Result->Arguments.has_value();
    if (Got->HasArguments) {
      Got->ArgumentsBegin = SM.getFileOffset(Result->Arguments->getBegin());
      Got->ArgumentsEnd = SM.getFileOffset(Result->Arguments->getEnd());
      Got->TextEnd = Got->ArgumentsBegin + Result->ArgumentText.size();
    }
  }
  const bool Same =
      Got.has_value() == Expected.has_value() &&
      (!Got || (Got->WholeBegin == Expected->WholeBegin && Got->WholeEnd == Expected->WholeEnd &&
                Got->HasArguments == Expected->HasArguments &&
                (!Got->HasArguments || (Got->ArgumentsBegin == Expected->ArgumentsBegin &&
                                        Got->ArgumentsEnd == Expected->ArgumentsEnd &&
                                        Got->TextEnd == Expected->TextEnd))));
  if (!Same)
    fail(B, Offset, Name,
         "the reader gives " + describe(Got) + (Result ? "" : " (" + Problem + ")") +
             "; lexing the buffer from there (comments skipped) gives " + describe(Expected));
  return Result.has_value();
}

// The invariants of a successful reading that need no reference.
void checkInvariants(const SourceManager& SM, const LangOptions& LangOpts, const Buffer& B,
                     size_t Offset, llvm::StringRef Name, const AttributeSpelling& S) {
  // Whole starts at the 'distlock' token: at the requested location, or after the
  // whitespace and comments the reader skips there.
  const size_t WholeBegin = offsetIn(SM, B, S.Whole.getBegin(), Offset, Name, "Whole's begin");
  if (WholeBegin < Offset) fail(B, Offset, Name, "Whole starts before the requested location");
  const size_t WholeEnd = offsetIn(SM, B, S.Whole.getEnd(), Offset, Name, "Whole's end");
  if (WholeEnd <= WholeBegin) fail(B, Offset, Name, "Whole ends before it begins");

  // The reader accepted "distlock" "::" Name: the first token must say so on its own.
  {
    std::optional<Token> Scope = tokenAt(SM, LangOpts, B, WholeBegin);
    if (!Scope || Lexer::getSpelling(*Scope, SM, LangOpts) != "distlock")
      fail(B, Offset, Name, "Whole does not start at a 'distlock' token");
  }

  std::optional<Token> Last = tokenAt(SM, LangOpts, B, WholeEnd);
  if (!Last) fail(B, Offset, Name, "no token at the end of Whole");
  if (!Last->getLength() || WholeEnd + Last->getLength() > B.Text.size())
    fail(B, Offset, Name, "the last token of Whole runs past the end of the buffer");

  if (!S.Arguments) {
    // No parentheses: Whole ends at the attribute name, and no text was taken.
    if (Lexer::getSpelling(*Last, SM, LangOpts) != Name)
      fail(B, Offset, Name, "without arguments, Whole does not end at the attribute name");
    if (!S.ArgumentText.empty()) fail(B, Offset, Name, "ArgumentText without Arguments");
    return;
  }

  // Parentheses: Whole ends at the ')' that closes them, a ')' in the buffer (after any
  // line splices, which the raw lexer folds into the token).
  if (Last->isNot(tok::r_paren))
    fail(B, Offset, Name,
         std::string("Whole ends at a ") + tok::getTokenName(Last->getKind()) +
             " token, not at ')'");
  {
    size_t I = WholeEnd;
    while (I < B.Text.size() && B.Text[I] == '\\') {  // Backslash, spaces, newline.
      size_t J = I + 1;
      while (J < B.Text.size() &&
             (B.Text[J] == ' ' || B.Text[J] == '\t' || B.Text[J] == '\f' || B.Text[J] == '\v'))
        ++J;
      if (J >= B.Text.size() || (B.Text[J] != '\n' && B.Text[J] != '\r')) break;
      if (J + 1 < B.Text.size() && B.Text[J + 1] != B.Text[J] &&
          (B.Text[J + 1] == '\n' || B.Text[J + 1] == '\r'))
        ++J;
      I = J + 1;
    }
    if (I >= B.Text.size() || B.Text[I] != ')')
      fail(B, Offset, Name, "Whole's last token is not a ')' character in the buffer");
  }

  const size_t ArgsBegin =
      offsetIn(SM, B, S.Arguments->getBegin(), Offset, Name, "Arguments' begin");
  const size_t ArgsEnd = offsetIn(SM, B, S.Arguments->getEnd(), Offset, Name, "Arguments' end");
  if (ArgsBegin == WholeEnd && ArgsEnd == WholeEnd) {
    // Empty parentheses: the reader points Arguments at the ')'.
    if (!S.ArgumentText.empty())
      fail(B, Offset, Name,
           "empty parentheses but ArgumentText \"" + printable(S.ArgumentText) + "\"");
    return;
  }
  if (ArgsBegin <= WholeBegin || ArgsEnd < ArgsBegin || ArgsEnd >= WholeEnd)
    fail(B, Offset, Name,
         "Arguments [" + std::to_string(ArgsBegin) + ", " + std::to_string(ArgsEnd) +
             "] not strictly inside Whole [" + std::to_string(WholeBegin) + ", " +
             std::to_string(WholeEnd) + "]");

  // ArgumentText: exactly the buffer from the first token to the end of the last one.
  std::optional<Token> LastArg = tokenAt(SM, LangOpts, B, ArgsEnd);
  if (!LastArg) fail(B, Offset, Name, "no token at the end of Arguments");
  const size_t TextEnd = ArgsEnd + LastArg->getLength();
  if (TextEnd > WholeEnd) fail(B, Offset, Name, "the last argument token overlaps the closing ')'");
  if (S.ArgumentText.empty()) fail(B, Offset, Name, "arguments present but ArgumentText is empty");
  if (S.ArgumentText != B.Text.slice(ArgsBegin, TextEnd))
    fail(B, Offset, Name,
         "ArgumentText \"" + printable(S.ArgumentText) + "\" is not the buffer's text \"" +
             printable(B.Text.slice(ArgsBegin, TextEnd)) + "\"");
  if (B.Text.substr(B.InputBegin).find(S.ArgumentText) == llvm::StringRef::npos)
    fail(B, Offset, Name, "ArgumentText is not a substring of the fuzzed input");

  size_t Tokens = 0;
  const std::string Unbalanced = checkBalanced(LangOpts, S.ArgumentText, Tokens);
  if (!Unbalanced.empty())
    fail(B, Offset, Name,
         "the brackets of ArgumentText \"" + printable(S.ArgumentText) +
             "\" do not balance: " + Unbalanced);
  if (Tokens == 0)
    fail(B, Offset, Name,
         "ArgumentText \"" + printable(S.ArgumentText) + "\" (buffer offsets [" +
             std::to_string(ArgsBegin) + ", " + std::to_string(TextEnd) +
             ")) holds no token when lexed on its own");
}

// Adds a buffer "Prefix + Input" to SM.
Buffer addBuffer(SourceManager& SM, llvm::StringRef Prefix, llvm::StringRef Input,
                 const char* Label) {
  std::unique_ptr<llvm::MemoryBuffer> Memory =
      llvm::MemoryBuffer::getMemBufferCopy((Prefix + Input).str(), Label);
  Buffer B{{}, Prefix.size(), {}, Label};
  B.File = SM.createFileID(std::move(Memory));
  B.Text = SM.getBufferData(B.File);
  return B;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* Data, size_t Size) {
  Environment& Env = environment();
  const llvm::StringRef Input(reinterpret_cast<const char*>(Data), Size);
  SourceManager SM(Env.Diags, Env.Files);

  // 1. The input as the whole file.
  const Buffer Whole = addBuffer(SM, "", Input, "input");
  std::vector<size_t> Starts = {0};
  for (size_t At = Input.find("distlock", 1);
       At != llvm::StringRef::npos && Starts.size() <= kMaxStartsPerInput;
       At = Input.find("distlock", At + 1))
    Starts.push_back(At);
  for (size_t Start : Starts) {
    readAndCheck(SM, Env.LangOpts, Whole, Start, "lock");
    readAndCheck(SM, Env.LangOpts, Whole, Start, "key");
  }

  // 2. The input as the arguments of distlock::lock.
  const Buffer Lock = addBuffer(SM, "distlock::lock(", Input, "distlock::lock( + input");
  readAndCheck(SM, Env.LangOpts, Lock, 0, "lock");
  if (readAndCheck(SM, Env.LangOpts, Lock, 0, "key"))
    fail(Lock, 0, "key", "distlock::lock read as distlock::key");

  // 3. The input as the arguments of distlock::key.
  const Buffer Key = addBuffer(SM, "distlock::key(", Input, "distlock::key( + input");
  readAndCheck(SM, Env.LangOpts, Key, 0, "key");
  return 0;
}
