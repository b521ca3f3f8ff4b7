// SPDX-License-Identifier: Apache-2.0
// guardText and lineDirective: the exact statement woven after a locked function's '{'.
#include "GuardText.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace distlock::weave {
namespace {

GuardParts parts(const std::vector<std::string>& Keys) {
  GuardParts Parts;
  Parts.LockArguments = {"\"order\", 30s, distlock::wait(5s)", "/src/orders.cpp", 12, 21};
  Parts.KeyExpressions = Keys;
  Parts.BodyFile = "/src/orders.cpp";
  Parts.BodyLine = 14;
  return Parts;
}

GuardParts freeFunction(const std::vector<std::string>& Keys) {
  GuardParts Parts = parts(Keys);
  Parts.Busy.ResultType = "int";
  Parts.Busy.Parameters = {{{"user", false}, {"order", false}}};
  return Parts;
}

TEST(GuardText, AFreeFunctionWithKeys) {
  const std::vector<std::string> Keys = {"user", "order.id"};
  EXPECT_EQ(
      guardText(freeFunction(Keys)),
      "\n"
      "#line 12 \"/src/orders.cpp\"\n"
      "static constexpr auto distlock_woven_lock_ = [] { using namespace "
      "::std::chrono_literals; return ::distlock::woven::annotation(\n"
      "#line 12 \"/src/orders.cpp\"\n"
      "                    \"order\", 30s, distlock::wait(5s)\n"
      "#line 12 \"/src/orders.cpp\"\n"
      "); }();\n"
      "#line 12 \"/src/orders.cpp\"\n"
      "static_assert(::distlock::woven::skip_fits<int>(distlock_woven_lock_), \"on_busy(skip) "
      "needs a return type it can value-initialize (void or a default-constructible type); or "
      "use on_busy(fallback(&f))\");\n"
      "#line 12 \"/src/orders.cpp\"\n"
      "static_assert(::distlock::woven::fallback_fits<int, ::distlock::woven::NoObject, "
      "decltype(user), decltype(order)>(distlock_woven_lock_), \"on_busy(fallback(&f)): f must "
      "take this function's parameters and return its return type (for a member: of the same "
      "class, as const)\");\n"
      "#line 14 \"/src/orders.cpp\"\n"
      "::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, "
      "::distlock::woven::keys(user, order.id)); if (distlock_woven_guard_.busy()) return "
      "::distlock::woven::busy_result<int>(distlock_woven_lock_, ::distlock::woven::no_object, "
      "static_cast<decltype(user)&&>(user), static_cast<decltype(order)&&>(order));");
}

TEST(GuardText, WithoutKeysTheLockIsTheTypeAlone) {
  const std::string Text = guardText(freeFunction({}));
  EXPECT_NE(
      Text.find("::distlock::woven::LockedCall distlock_woven_guard_(distlock_woven_lock_.spec, "
                "::distlock::woven::keys());"),
      std::string::npos)
      << Text;
}

// A member's fallback is a member function called on the same object; a parameter pack is
// passed on as a pack.
TEST(GuardText, AMemberPassesThisAndPacks) {
  const std::vector<std::string> Keys = {"id"};
  GuardParts Parts = parts(Keys);
  Parts.Busy.ResultType = "std::optional<Receipt>";
  Parts.Busy.OnThis = true;
  Parts.Busy.Parameters = {{{"id", false}, {"rest", true}}};
  const std::string Text = guardText(Parts);
  EXPECT_NE(Text.find("fallback_fits<std::optional<Receipt>, decltype(this), decltype(id), "
                      "decltype(rest)...>(distlock_woven_lock_)"),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find("busy_result<std::optional<Receipt>>(distlock_woven_lock_, this, "
                      "static_cast<decltype(id)&&>(id), static_cast<decltype(rest)&&>(rest)...);"),
            std::string::npos)
      << Text;
}

// With a parameter that has no name, no fallback can be called: the guard asserts there is none
// and a skip passes nothing on.
TEST(GuardText, AnUnnamedParameterRulesOutAFallback) {
  GuardParts Parts = parts({});
  Parts.Busy.ResultType = "bool";
  const std::string Text = guardText(Parts);
  EXPECT_NE(Text.find("static_assert(!::distlock::woven::calls_fallback(distlock_woven_lock_), "
                      "\"on_busy(fallback(&f)) passes every argument to f: name each parameter"),
            std::string::npos)
      << Text;
  EXPECT_EQ(Text.find("fallback_fits"), std::string::npos) << Text;
  EXPECT_NE(Text.find("busy_result<bool>(distlock_woven_lock_, ::distlock::woven::no_object);"),
            std::string::npos)
      << Text;
}

// A constructor has no result to give: the guard asserts the lock raises when busy, and has no
// busy branch.
TEST(GuardText, WithoutAResultOnlyRaisingIsAllowed) {
  const std::vector<std::string> Keys = {"id"};
  const std::string Text = guardText(parts(Keys));
  EXPECT_NE(Text.find("static_assert(::distlock::woven::raises_when_busy(distlock_woven_lock_), "
                      "\"on_busy needs a result to return"),
            std::string::npos)
      << Text;
  EXPECT_EQ(Text.find("busy()"), std::string::npos) << Text;
  EXPECT_EQ(Text.find("skip_fits"), std::string::npos) << Text;
}

// The arguments start in the column the user wrote them in, so that a compiler error in them
// points at the user's own column.
TEST(GuardText, ArgumentsKeepTheirColumn) {
  GuardParts Parts = parts({});
  Parts.LockArguments.Column = 1;
  EXPECT_NE(guardText(Parts).find("\n\"order\", 30s"), std::string::npos);
  Parts.LockArguments.Column = 5;
  EXPECT_NE(guardText(Parts).find("\n    \"order\", 30s"), std::string::npos);
}

// The guard adds no line of its own to the '{' line's numbering: every line break in it is
// followed by a #line directive or by the pasted arguments, which have one of their own.
TEST(GuardText, EndsOnTheBodyLine) {
  const std::vector<std::string> Keys = {"user"};
  const std::string Text = guardText(freeFunction(Keys));
  const auto LastBreak = Text.rfind('\n');
  const auto LastDirective = Text.rfind("#line 14 \"/src/orders.cpp\"\n");
  ASSERT_NE(LastDirective, std::string::npos);
  EXPECT_EQ(LastBreak, LastDirective + std::string("#line 14 \"/src/orders.cpp\"").size());
}

TEST(LineDirective, EscapesTheFileName) {
  EXPECT_EQ(lineDirective(7, "/a b/c.cpp"), "#line 7 \"/a b/c.cpp\"");
  EXPECT_EQ(lineDirective(1, "C:\\src\\x.cpp"), "#line 1 \"C:\\\\src\\\\x.cpp\"");
  EXPECT_EQ(lineDirective(3, "quo\"te.cpp"), "#line 3 \"quo\\\"te.cpp\"");
}

}  // namespace
}  // namespace distlock::weave
