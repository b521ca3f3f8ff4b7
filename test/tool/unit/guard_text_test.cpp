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

TEST(GuardText, WithKeys) {
  const std::vector<std::string> Keys = {"user", "order.id"};
  EXPECT_EQ(guardText(parts(Keys)),
            "\n"
            "#line 12 \"/src/orders.cpp\"\n"
            "static constexpr ::distlock::woven::LockSpec distlock_woven_spec_ = [] { using "
            "namespace ::std::chrono_literals; return ::distlock::woven::spec(\n"
            "#line 12 \"/src/orders.cpp\"\n"
            "                    \"order\", 30s, distlock::wait(5s)\n"
            "#line 12 \"/src/orders.cpp\"\n"
            "); }();\n"
            "#line 14 \"/src/orders.cpp\"\n"
            "::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_, "
            "::distlock::woven::key_of(user, order.id));");
}

TEST(GuardText, WithoutKeysTheLockIsTheTypeAlone) {
  const std::string Text = guardText(parts({}));
  const std::string Tail =
      "::distlock::woven::ScopedLock distlock_woven_guard_(distlock_woven_spec_);";
  ASSERT_GE(Text.size(), Tail.size());
  EXPECT_EQ(Text.substr(Text.size() - Tail.size()), Tail);
  EXPECT_EQ(Text.find("key_of"), std::string::npos);
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
  const std::string Text = guardText(parts({"user"}));
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
