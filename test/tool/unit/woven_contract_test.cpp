// SPDX-License-Identifier: Apache-2.0
// The contract of include/distlock/woven.h: the guard distlock-weave emits names nothing of
// distlock but what distlock::woven declares, and the header declares nothing the guard does
// not use. Either side drifting fails here.
#include "GuardText.h"
#include "WovenOutput.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace distlock::weave {
namespace {

std::string textOf(const char* Header) {
  std::ifstream File(std::string(DISTLOCK_INCLUDE_DIR) + "/" + Header);
  EXPECT_TRUE(File.good()) << "cannot read " << Header;
  std::stringstream Text;
  Text << File.rdbuf();
  return Text.str();
}

// What woven.h brings into distlock::woven, and what distlock/asio.h and distlock/boost_asio.h
// define there for a coroutine's guard (the templates returning an awaitable).
std::set<std::string> declaredByTheHeaders() {
  std::set<std::string> Names;
  const std::string Woven = textOf(WovenRuntimeHeader);
  const std::regex Using("using ::distlock::([A-Za-z_][A-Za-z_0-9]*);");
  for (std::sregex_iterator It(Woven.begin(), Woven.end(), Using), End; It != End; ++It)
    Names.insert((*It)[1]);
  const std::regex Awaiting("::asio::awaitable<[A-Za-z_]+> ([A-Za-z_][A-Za-z_0-9]*)\\(");
  for (const char* Header : {WovenAsioHeader, WovenBoostAsioHeader}) {
    const std::string Asio = textOf(Header);
    for (std::sregex_iterator It(Asio.begin(), Asio.end(), Awaiting), End; It != End; ++It)
      Names.insert((*It)[1]);
  }
  return Names;
}

// Every guard shape: with and without keys; a free function, a member, one whose parameter
// has no name, a constructor (no result), and a coroutine, with the calls its body makes for
// its lease.
std::string everyGuard() {
  const std::vector<std::string> Keys = {"user", "order.id"};
  GuardParts Parts;
  Parts.LockArguments = {"\"order\", 30s, distlock::wait(5s)", "/src/a.cpp", 3, 3};
  Parts.BodyFile = "/src/a.cpp";
  Parts.BodyLine = 4;
  std::string Text = guardText(Parts);
  Parts.KeyExpressions = Keys;
  Text += guardText(Parts);
  Parts.Busy.ResultType = "int";
  Text += guardText(Parts);
  Parts.Busy.Parameters = {{{"user", false}}};
  Text += guardText(Parts);
  Parts.Busy.OnThis = true;
  Text += guardText(Parts);
  Parts.Coroutine = CoroutineReturn{"int", false};
  Text += guardText(Parts);
  Parts.Coroutine = CoroutineReturn{"int", true};
  Text += guardText(Parts);
  // What a woven coroutine's body calls for its lease.
  for (const LeaseFunction& Function : LeaseFunctions)
    Text += guardLeaseFunction(Function.Name) + "(" + GuardVariable.str() + ");\n";
  return Text;
}

TEST(WovenContract, TheGuardNamesOnlyWhatWovenHDeclares) {
  const std::string Guard = everyGuard();
  // The pasted arguments are the user's: leave them out.
  std::string Emitted = std::regex_replace(Guard, std::regex("distlock::wait\\(5s\\)"), "");
  const std::regex Qualified("::distlock::([A-Za-z_][A-Za-z_0-9]*)(::([A-Za-z_][A-Za-z_0-9]*))?");
  std::set<std::string> Used;
  for (std::sregex_iterator It(Emitted.begin(), Emitted.end(), Qualified), End; It != End; ++It) {
    ASSERT_EQ((*It)[1], "woven") << "the guard names ::distlock::" << (*It)[1]
                                 << " outside distlock::woven:\n"
                                 << Guard;
    Used.insert((*It)[3]);
  }
  EXPECT_EQ(Used, declaredByTheHeaders())
      << "the tool and include/distlock/woven.h (with distlock/asio.h for coroutines) disagree "
         "on what woven code uses";
}

TEST(WovenContract, AWovenFileIncludesOnlyTheContract) {
  const std::string Woven = wovenSource("/src/a.cpp", "int x;\n", {WovenRuntimeHeader});
  EXPECT_EQ(Woven.rfind("#include <distlock/woven.h>\n", 0), 0u) << Woven;
  EXPECT_EQ(Woven.find("distlock.h"), std::string::npos) << Woven;
}

}  // namespace
}  // namespace distlock::weave
