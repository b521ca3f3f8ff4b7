// SPDX-License-Identifier: Apache-2.0
// absolutePath, relativeTo and HeaderMirror::mirroredPath: where a header's woven copy goes.
#include "Paths.h"
#include "HeaderMirror.h"

#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

namespace distlock::weave {
namespace {

TEST(AbsolutePath, RemovesDotsAndAnchorsRelativePaths) {
  EXPECT_EQ(absolutePath("/a/./b/../c.h"), "/a/c.h");
  EXPECT_EQ(absolutePath(""), "");
  llvm::SmallString<128> Cwd;
  ASSERT_FALSE(llvm::sys::fs::current_path(Cwd));
  EXPECT_EQ(absolutePath("x/y.h"), (Cwd + "/x/y.h").str());
}

TEST(RelativeTo, InsideAndOutside) {
  EXPECT_EQ(relativeTo("/src/include/a.h", "/src"), "include/a.h");
  EXPECT_EQ(relativeTo("/src/include/a.h", "/src/"), "include/a.h");
  EXPECT_EQ(relativeTo("/srcs/a.h", "/src"), std::nullopt) << "a prefix of a name is no parent";
  EXPECT_EQ(relativeTo("/src", "/src"), std::nullopt);
  EXPECT_EQ(relativeTo("/src/a.h", ""), std::nullopt);
  EXPECT_EQ(relativeTo("/src/a.h", "/"), "src/a.h");
}

TEST(HeaderMirror, MirrorsHeadersUnderTheSourceRootOnly) {
  HeaderMirror Mirror("/project", "/project/build/woven");
  EXPECT_EQ(Mirror.mirroredPath("/project/include/shop/stock.h"),
            "/project/build/woven/include/shop/stock.h");
  EXPECT_EQ(Mirror.mirroredPath("/usr/include/stdio.h"), std::nullopt);
  EXPECT_EQ(Mirror.mirroredPath("/project/build/woven/include/shop/stock.h"), std::nullopt)
      << "a woven copy is never copied again";
}

TEST(HeaderMirror, WithoutRootsNothingIsMirrored) {
  HeaderMirror Mirror("", "");
  EXPECT_EQ(Mirror.mirroredPath("/project/include/a.h"), std::nullopt);
}

}  // namespace
}  // namespace distlock::weave
