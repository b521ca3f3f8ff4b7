// SPDX-License-Identifier: Apache-2.0
// parseKeyPath: the syntax of [[distlock::key("path")]]. Resolving a path against a type
// needs a parsed translation unit: that is the lit suite's (key_paths.cpp, diagnostics/).
#include "KeyPath.h"

#include <gtest/gtest.h>

namespace distlock::weave {
namespace {

struct Expected {
  const char* Name;
  bool IsCall;
};

void expectSegments(llvm::StringRef Path, std::initializer_list<Expected> Want) {
  auto Segments = parseKeyPath(Path);
  ASSERT_TRUE(Segments.has_value()) << Path.str();
  ASSERT_EQ(Segments->size(), Want.size()) << Path.str();
  size_t I = 0;
  for (const Expected& Segment : Want) {
    EXPECT_EQ((*Segments)[I].Name, Segment.Name) << Path.str() << " #" << I;
    EXPECT_EQ((*Segments)[I].IsCall, Segment.IsCall) << Path.str() << " #" << I;
    ++I;
  }
}

TEST(KeyPath, OneField) { expectSegments("id", {{"id", false}}); }

TEST(KeyPath, NestedFields) {
  expectSegments("customer.address.zip", {{"customer", false}, {"address", false}, {"zip", false}});
}

TEST(KeyPath, CallsWithoutArguments) {
  expectSegments("id()", {{"id", true}});
  expectSegments("customer().id", {{"customer", true}, {"id", false}});
  expectSegments("a.b().c()", {{"a", false}, {"b", true}, {"c", true}});
}

TEST(KeyPath, IdentifiersAsCxxSpellsThem) { expectSegments("_private_9", {{"_private_9", false}}); }

TEST(KeyPath, RejectsWhatIsNotAPath) {
  for (const char* Bad : {"", ".", "a.", ".a", "a..b", "1a", "a b", "a-b", "a(1)", "a()()", "a->b",
                          "a[0]", "a::b", "()", "a.()", "a(", "ä"})
    EXPECT_FALSE(parseKeyPath(Bad).has_value()) << '"' << Bad << '"';
}

}  // namespace
}  // namespace distlock::weave
