// SPDX-License-Identifier: Apache-2.0
// The lock inventory: splitting the attribute's arguments, the JSON written and read back.
#include "LockInventory.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace distlock::weave {
namespace {

TEST(SplitArguments, AtTopLevelCommasOnly) {
  EXPECT_EQ(
      splitArguments(R"("order", 30s, distlock::wait(std::chrono::seconds(5)))"),
      (std::vector<std::string>{"\"order\"", "30s", "distlock::wait(std::chrono::seconds(5))"}));
  EXPECT_EQ(splitArguments(R"( "a,b" , ',' , f(1, 2), x[1, 2], T{1, 2})"),
            (std::vector<std::string>{"\"a,b\"", "','", "f(1, 2)", "x[1, 2]", "T{1, 2}"}));
  EXPECT_EQ(
      splitArguments("\"t\", std::chrono::duration<long, std::milli>(5), 1'000"),
      (std::vector<std::string>{"\"t\"", "std::chrono::duration<long, std::milli>(5)", "1'000"}));
  EXPECT_EQ(splitArguments(R"("es\"c,aped", 1)"),
            (std::vector<std::string>{R"("es\"c,aped")", "1"}));
  EXPECT_TRUE(splitArguments("  ").empty());
}

TEST(PlainStringLiteral, OnlyALiteralWithoutEscapes) {
  EXPECT_EQ(plainStringLiteral(" \"order\" "), "order");
  EXPECT_EQ(plainStringLiteral("kOrderType"), std::nullopt);
  EXPECT_EQ(plainStringLiteral(R"("a\"b")"), std::nullopt);
  EXPECT_EQ(plainStringLiteral("\"a\" \"b\""), std::nullopt);
}

LockRecord sampleLock() {
  LockRecord Lock;
  Lock.Name = "shop::Inventory::reserve";
  Lock.Usr = "c:@N@shop@S@Inventory@F@reserve#";
  Lock.Type = "stock";
  Lock.TypeAsWritten = "\"stock\"";
  Lock.Ttl = "5s";
  Lock.Options = {"distlock::wait(1s)"};
  Lock.Keys = {{"item", 0, "sku"}};
  Lock.At = {"/src/inventory.cpp", 9, 17};
  Lock.Calls = {{"shop::log", "c:@N@shop@F@log#", {"/src/inventory.cpp", 11, 3}, {"item.sku"}}};
  return Lock;
}

TEST(Inventory, ReadsBackWhatItWrites) {
  LockRecord Named = sampleLock();
  LockRecord Unnamed = sampleLock();
  Unnamed.Type.reset();
  Unnamed.TypeAsWritten = "kType";
  Unnamed.Coroutine = true;
  Unnamed.Calls[0].Awaited = true;
  const std::string Text = inventoryText({Named, Unnamed}, "shop");
  auto Read = parseInventory(Text, "shop.json");
  ASSERT_TRUE(static_cast<bool>(Read)) << llvm::toString(Read.takeError());
  ASSERT_EQ(Read->size(), 2u);
  const LockRecord& Lock = (*Read)[0];
  EXPECT_EQ(Lock.Name, Named.Name);
  EXPECT_EQ(Lock.Usr, Named.Usr);
  EXPECT_EQ(Lock.Type, "stock");
  EXPECT_EQ(Lock.Ttl, "5s");
  EXPECT_EQ(Lock.Options, Named.Options);
  ASSERT_EQ(Lock.Keys.size(), 1u);
  EXPECT_EQ(Lock.Keys[0].Parameter, "item");
  EXPECT_EQ(Lock.Keys[0].Path, "sku");
  EXPECT_EQ(Lock.At.Line, 9u);
  EXPECT_EQ(Lock.At.Column, 17u);
  ASSERT_EQ(Lock.Calls.size(), 1u);
  EXPECT_EQ(Lock.Calls[0].Usr, "c:@N@shop@F@log#");
  EXPECT_EQ(Lock.Calls[0].At.Line, 11u);
  EXPECT_EQ(Lock.Calls[0].Arguments, std::vector<std::string>{"item.sku"});
  EXPECT_FALSE(Lock.Coroutine);
  EXPECT_FALSE(Lock.Calls[0].Awaited);
  EXPECT_FALSE((*Read)[1].Type.has_value());
  EXPECT_EQ((*Read)[1].typeIdentity(), "expression kType");
  EXPECT_TRUE((*Read)[1].Coroutine);
  EXPECT_TRUE((*Read)[1].Calls[0].Awaited);
}

// An inventory written before coroutines were told apart reads as functions on a thread.
TEST(Inventory, ReadsOneWithoutCoroutineFields) {
  const std::string Text = inventoryText({sampleLock()});
  std::string Old = Text;
  for (const char* Field : {",\n      \"coroutine\": false", ",\n          \"awaited\": false"}) {
    const std::string::size_type At = Old.find(Field);
    ASSERT_NE(At, std::string::npos) << Field << " in " << Text;
    Old.erase(At, std::string(Field).size());
  }
  auto Read = parseInventory(Old, "old.json");
  ASSERT_TRUE(static_cast<bool>(Read)) << llvm::toString(Read.takeError());
  EXPECT_FALSE((*Read)[0].Coroutine);
  EXPECT_FALSE((*Read)[0].Calls[0].Awaited);
}

TEST(LockType, TheFirstArgumentItsValueOrItsExpression) {
  EXPECT_EQ(lockTypeAsWritten("\"order\", 30s, distlock::wait(f(1, 2))"), "\"order\"");
  EXPECT_EQ(lockTypeIdentity("\"order\""), "order");
  EXPECT_EQ(lockTypeIdentity("kOrder"), "expression kOrder");
}

TEST(Inventory, RefusesWhatIsNotOneSaying) {
  for (const std::string Text : {"[]", "{\"version\": 2, \"functions\": []}",
                                 "{\"version\": 1, \"functions\": [{\"name\": 1}]}", "not json"}) {
    auto Read = parseInventory(Text, "bad.json");
    ASSERT_FALSE(static_cast<bool>(Read)) << Text;
    const std::string Message = llvm::toString(Read.takeError());
    EXPECT_NE(Message.find("bad.json"), std::string::npos) << Message;
  }
}

}  // namespace
}  // namespace distlock::weave
