// SPDX-License-Identifier: Apache-2.0
// depfileText, wovenSource and writeFileAtomically: what distlock-weave writes around the
// woven text.
#include "WovenOutput.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace distlock::weave {
namespace {

TEST(DepfileText, TargetThenOneDependencyPerLine) {
  const std::vector<std::string> Dependencies = {"/src/a.cpp", "/src/a.h"};
  EXPECT_EQ(depfileText("/out/a.cpp", Dependencies),
            "/out/a.cpp: \\\n  /src/a.cpp \\\n  /src/a.h\n");
}

TEST(DepfileText, NoDependencies) { EXPECT_EQ(depfileText("/out/a.cpp", {}), "/out/a.cpp:\n"); }

// As make and ninja read depfiles: a space or '#' escaped with a backslash, '$' doubled.
TEST(DepfileText, EscapesWhatMakeWouldMisread) {
  const std::vector<std::string> Dependencies = {"/my src/a#1.h", "/cost$/b.h"};
  EXPECT_EQ(depfileText("/out dir/a.cpp", Dependencies),
            "/out\\ dir/a.cpp: \\\n  /my\\ src/a\\#1.h \\\n  /cost$$/b.h\n");
}

TEST(WovenSource, IncludesTheRuntimeOnlyWhenAGuardNeedsIt) {
  EXPECT_EQ(wovenSource("/src/a.cpp", "int x;\n", {}), "#line 1 \"/src/a.cpp\"\nint x;\n");
  EXPECT_EQ(wovenSource("/src/a.cpp", "int x;\n", {"distlock/woven.h"}),
            "#include <distlock/woven.h>\n#line 1 \"/src/a.cpp\"\nint x;\n");
}

class WriteFileAtomically : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("distlock-weave-unit", Directory));
    Path = (Directory + "/out.cpp").str();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Directory); }

  std::string read() const {
    auto Buffer = llvm::MemoryBuffer::getFile(Path);
    return Buffer ? (*Buffer)->getBuffer().str() : "<unreadable>";
  }
  llvm::sys::TimePoint<> modified() const {
    llvm::sys::fs::file_status Status;
    EXPECT_FALSE(llvm::sys::fs::status(Path, Status));
    return Status.getLastModificationTime();
  }

  llvm::SmallString<128> Directory;
  std::string Path;
};

TEST_F(WriteFileAtomically, WritesAndReplaces) {
  ASSERT_FALSE(writeFileAtomically(Path, "one", WriteMode::Always));
  EXPECT_EQ(read(), "one");
  ASSERT_FALSE(writeFileAtomically(Path, "two", WriteMode::IfChanged));
  EXPECT_EQ(read(), "two");
}

TEST_F(WriteFileAtomically, IfChangedLeavesAnEqualFileAlone) {
  ASSERT_FALSE(writeFileAtomically(Path, "same", WriteMode::Always));
  const auto Old = llvm::sys::TimePoint<>() + std::chrono::seconds(1000000);
  ASSERT_FALSE(llvm::sys::fs::setLastAccessAndModificationTime(
      llvm::sys::fs::openNativeFileForWrite(Path, llvm::sys::fs::CD_OpenExisting,
                                            llvm::sys::fs::OF_None)
          .get(),
      Old));
  ASSERT_FALSE(writeFileAtomically(Path, "same", WriteMode::IfChanged));
  EXPECT_EQ(modified(), Old) << "an unchanged header copy was rewritten";
  ASSERT_FALSE(writeFileAtomically(Path, "same", WriteMode::Always));
  EXPECT_NE(modified(), Old) << "a declared output was not rewritten";
}

TEST_F(WriteFileAtomically, CreatesMissingDirectories) {
  const std::string Nested = (Directory + "/include/shop/stock.h").str();
  ASSERT_FALSE(writeFileAtomically(Nested, "copy", WriteMode::IfChanged));
  auto Buffer = llvm::MemoryBuffer::getFile(Nested);
  ASSERT_TRUE(static_cast<bool>(Buffer));
  EXPECT_EQ((*Buffer)->getBuffer(), "copy");
}

TEST_F(WriteFileAtomically, NamesWhatItCannotWriteAndLeavesNoTemporary) {
  ASSERT_FALSE(writeFileAtomically(Path, "a file where a directory would go", WriteMode::Always));
  const std::string Blocked = Path + "/woven.cpp";
  llvm::Error Error = writeFileAtomically(Blocked, "x", WriteMode::Always);
  ASSERT_TRUE(static_cast<bool>(Error));
  const std::string Message = llvm::toString(std::move(Error));
  EXPECT_NE(Message.find(Path), std::string::npos) << Message;
  std::error_code EC;
  int Entries = 0;
  for (llvm::sys::fs::directory_iterator It(Directory, EC), End; It != End && !EC; It.increment(EC))
    ++Entries;
  EXPECT_EQ(Entries, 1) << "a temporary file was left behind";
}

}  // namespace
}  // namespace distlock::weave
