// SPDX-License-Identifier: Apache-2.0
//===- LockInventory.cpp - The locked functions of a target, as JSON ------===//

#include "LockInventory.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace distlock {
namespace weave {

namespace json = llvm::json;

namespace {

std::string typeIdentityOf(const std::optional<std::string> &Type,
                           llvm::StringRef AsWritten) {
  return Type ? *Type : "expression " + AsWritten.str();
}

} // namespace

std::string LockRecord::typeIdentity() const {
  return typeIdentityOf(Type, TypeAsWritten);
}

std::string lockTypeAsWritten(llvm::StringRef LockArguments) {
  std::vector<std::string> Arguments = splitArguments(LockArguments);
  return Arguments.empty() ? std::string() : Arguments.front();
}

std::string lockTypeIdentity(llvm::StringRef AsWritten) {
  return typeIdentityOf(plainStringLiteral(AsWritten), AsWritten);
}

std::vector<std::string> splitArguments(llvm::StringRef Text) {
  std::vector<std::string> Arguments;
  int Depth = 0;
  char Quote = 0;
  size_t Start = 0;
  char Previous = ' ';
  for (size_t I = 0; I < Text.size(); ++I) {
    const char C = Text[I];
    if (Quote) {
      if (C == '\\')
        ++I;
      else if (C == Quote)
        Quote = 0;
      continue;
    }
    switch (C) {
    case '"':
    case '\'':
      // A digit separator (1'000) is no character literal.
      if (!(C == '\'' && llvm::isDigit(Previous)))
        Quote = C;
      break;
    case '(':
    case '[':
    case '{':
      ++Depth;
      break;
    case '<':
      // A template argument list follows a name; a comparison rarely
      // appears in an attribute.
      if (llvm::isAlpha(Previous) || Previous == '_')
        ++Depth;
      break;
    case ')':
    case ']':
    case '}':
    case '>':
      if (Depth > 0)
        --Depth;
      break;
    case ',':
      if (Depth == 0) {
        Arguments.push_back(Text.slice(Start, I).trim().str());
        Start = I + 1;
      }
      break;
    }
    if (!llvm::isSpace(C))
      Previous = C;
  }
  if (!Text.drop_front(Start).trim().empty() || !Arguments.empty())
    Arguments.push_back(Text.drop_front(Start).trim().str());
  return Arguments;
}

std::optional<std::string> plainStringLiteral(llvm::StringRef Text) {
  Text = Text.trim();
  if (Text.size() < 2 || !Text.starts_with("\"") || !Text.ends_with("\""))
    return std::nullopt;
  llvm::StringRef Inside = Text.drop_front().drop_back();
  if (Inside.contains('"') || Inside.contains('\\'))
    return std::nullopt;
  return Inside.str();
}

namespace {

json::Object placeFields(const SourcePlace &At) {
  return json::Object{
      {"file", At.File}, {"line", At.Line}, {"column", At.Column}};
}

json::Value toValue(const CallRecord &Call) {
  json::Object Object{{"name", Call.Name}, {"usr", Call.Usr}};
  for (auto &Field : placeFields(Call.At))
    Object.try_emplace(Field.first, std::move(Field.second));
  json::Array Arguments;
  for (const std::string &Argument : Call.Arguments)
    Arguments.push_back(Argument);
  Object.try_emplace("arguments", std::move(Arguments));
  Object.try_emplace("awaited", Call.Awaited);
  return Object;
}

json::Value toValue(const LockRecord &Lock) {
  json::Object Object{{"name", Lock.Name},
                      {"usr", Lock.Usr},
                      {"type", Lock.Type ? json::Value(*Lock.Type) : nullptr},
                      {"type_as_written", Lock.TypeAsWritten},
                      {"ttl", Lock.Ttl}};
  json::Array Options;
  for (const std::string &Option : Lock.Options)
    Options.push_back(Option);
  Object.try_emplace("options", std::move(Options));
  json::Array Keys;
  for (const KeyRecord &Key : Lock.Keys)
    Keys.push_back(json::Object{{"parameter", Key.Parameter},
                                {"index", Key.Index},
                                {"path", Key.Path}});
  Object.try_emplace("keys", std::move(Keys));
  for (auto &Field : placeFields(Lock.At))
    Object.try_emplace(Field.first, std::move(Field.second));
  json::Array Calls;
  for (const CallRecord &Call : Lock.Calls)
    Calls.push_back(toValue(Call));
  Object.try_emplace("calls", std::move(Calls));
  Object.try_emplace("coroutine", Lock.Coroutine);
  return Object;
}

/// Reads one function's record; on a mismatch, says which field in Problem.
class RecordReader {
public:
  explicit RecordReader(std::string &Problem) : Problem(Problem) {}

  bool readLock(const json::Value &Value, LockRecord &Lock) {
    const json::Object *Object = Value.getAsObject();
    if (!Object)
      return fail("is not an object");
    if (!text(*Object, "name", Lock.Name) || !text(*Object, "usr", Lock.Usr) ||
        !text(*Object, "type_as_written", Lock.TypeAsWritten) ||
        !text(*Object, "ttl", Lock.Ttl) ||
        !strings(*Object, "options", Lock.Options) || !place(*Object, Lock.At))
      return false;
    if (std::optional<llvm::StringRef> Type = Object->getString("type"))
      Lock.Type = Type->str();
    // Absent from earlier weavers' inventories, which did not tell.
    Lock.Coroutine = Object->getBoolean("coroutine").value_or(false);
    const json::Array *Keys = Object->getArray("keys");
    const json::Array *Calls = Object->getArray("calls");
    if (!Keys || !Calls)
      return fail("needs the arrays 'keys' and 'calls'");
    for (const json::Value &Item : *Keys) {
      const json::Object *Key = Item.getAsObject();
      KeyRecord Record;
      std::optional<int64_t> Index =
          Key ? Key->getInteger("index") : std::nullopt;
      if (!Key || !Index || !text(*Key, "parameter", Record.Parameter) ||
          !text(*Key, "path", Record.Path))
        return fail("has a key without parameter, index and path");
      Record.Index = static_cast<unsigned>(*Index);
      Lock.Keys.push_back(std::move(Record));
    }
    for (const json::Value &Item : *Calls) {
      const json::Object *Call = Item.getAsObject();
      CallRecord Record;
      if (!Call || !text(*Call, "name", Record.Name) ||
          !text(*Call, "usr", Record.Usr) || !place(*Call, Record.At) ||
          !strings(*Call, "arguments", Record.Arguments))
        return fail("has a call without name, usr, file, line, column and "
                    "arguments");
      Record.Awaited = Call->getBoolean("awaited").value_or(false);
      Lock.Calls.push_back(std::move(Record));
    }
    return true;
  }

private:
  bool fail(const std::string &Why) {
    if (Problem.empty())
      Problem = Why;
    return false;
  }

  bool text(const json::Object &Object, llvm::StringRef Field,
            std::string &Out) {
    std::optional<llvm::StringRef> Found = Object.getString(Field);
    if (!Found)
      return fail("needs the string '" + Field.str() + "'");
    Out = Found->str();
    return true;
  }

  bool strings(const json::Object &Object, llvm::StringRef Field,
               std::vector<std::string> &Out) {
    const json::Array *Array = Object.getArray(Field);
    if (!Array)
      return fail("needs the array of strings '" + Field.str() + "'");
    for (const json::Value &Item : *Array) {
      std::optional<llvm::StringRef> Text = Item.getAsString();
      if (!Text)
        return fail("needs the array of strings '" + Field.str() + "'");
      Out.push_back(Text->str());
    }
    return true;
  }

  bool place(const json::Object &Object, SourcePlace &At) {
    std::optional<llvm::StringRef> File = Object.getString("file");
    std::optional<int64_t> Line = Object.getInteger("line");
    std::optional<int64_t> Column = Object.getInteger("column");
    if (!File || !Line || !Column)
      return fail("needs file, line and column");
    At = {File->str(), static_cast<unsigned>(*Line),
          static_cast<unsigned>(*Column)};
    return true;
  }

  std::string &Problem;
};

} // namespace

std::string inventoryText(llvm::ArrayRef<LockRecord> Locks,
                          llvm::StringRef Target) {
  json::Array Functions;
  for (const LockRecord &Lock : Locks)
    Functions.push_back(toValue(Lock));
  json::Object Root{{"version", InventoryVersion},
                    {"functions", std::move(Functions)}};
  if (!Target.empty())
    Root.try_emplace("target", Target);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::formatv("{0:2}", json::Value(std::move(Root))) << "\n";
  return Text;
}

llvm::Expected<std::vector<LockRecord>> parseInventory(llvm::StringRef Text,
                                                       llvm::StringRef From) {
  llvm::Expected<json::Value> Parsed = json::parse(Text);
  if (!Parsed)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s: %s",
                                   From.str().c_str(),
                                   llvm::toString(Parsed.takeError()).c_str());
  std::vector<LockRecord> Locks;
  const json::Object *Object = Parsed->getAsObject();
  const json::Array *Functions =
      Object ? Object->getArray("functions") : nullptr;
  std::optional<int64_t> Version =
      Object ? Object->getInteger("version") : std::nullopt;
  if (!Functions || Version != InventoryVersion)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "%s: not a distlock lock inventory of version %d", From.str().c_str(),
        InventoryVersion);
  for (size_t I = 0; I < Functions->size(); ++I) {
    LockRecord Lock;
    std::string Problem;
    if (!RecordReader(Problem).readLock((*Functions)[I], Lock))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "%s: functions[%zu] %s",
                                     From.str().c_str(), I, Problem.c_str());
    Locks.push_back(std::move(Lock));
  }
  return Locks;
}

} // namespace weave
} // namespace distlock
