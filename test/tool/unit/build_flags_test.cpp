// SPDX-License-Identifier: Apache-2.0
// The flags the weaver takes from the build's compile command: those that change the parse,
// with their values, in order; nothing that only one compiler understands.
#include "BuildFlags.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using distlock::weave::parseFlags;
using Args = std::vector<std::string>;

TEST(BuildFlags, KeepsTheStandardIncludesAndMacrosWithTheirValues) {
  const Args Command = {"/usr/bin/g++", "-DNDEBUG",     "-D",      "MODE=2", "-I/src/include",
                        "-isystem",     "/opt/include", "-iquote", "q",      "-std=gnu++17",
                        "-include",     "pre.h",        "-UOLD",   "-o",     "x.o",
                        "-c",           "x.cpp"};
  EXPECT_EQ(parseFlags(Command), (Args{"-DNDEBUG", "-D", "MODE=2", "-I/src/include", "-isystem",
                                       "/opt/include", "-iquote", "q", "-std=gnu++17", "-Xclang",
                                       "-include", "-Xclang", "pre.h", "-UOLD"}));
}

// Clang's driver would take a GCC precompiled header beside it (CMake's
// target_precompile_headers) for its own and fail: the frontend reads the text.
TEST(BuildFlags, AForcedIncludeIsReadAsTextNeverPrecompiled) {
  const Args Command = {
      "/usr/bin/c++", "-Winvalid-pch", "-include", "/b/cmake_pch.hxx", "-include/b/other.hxx",
      "-c",           "x.cpp"};
  EXPECT_EQ(parseFlags(Command), (Args{"-Xclang", "-include", "-Xclang", "/b/cmake_pch.hxx",
                                       "-Xclang", "-include", "-Xclang", "/b/other.hxx"}));
}

// CMake's precompiled header under Clang: the header is read as text, and the
// binary made from it (-include-pch) is not read at all.
TEST(BuildFlags, AClangPrecompiledHeaderGivesWayToItsHeaderAsText) {
  const Args Command = {
      "/usr/bin/clang++", "-DX",     "-Xclang",  "-include-pch", "-Xclang", "/b/p.pch", "-Xclang",
      "-include",         "-Xclang", "/b/p.hxx", "-I/b",         "-c",      "x.cpp"};
  EXPECT_EQ(parseFlags(Command),
            (Args{"-DX", "-Xclang", "-include", "-Xclang", "/b/p.hxx", "-I/b"}));
}

TEST(BuildFlags, DropsOptimisationWarningsAndOutput) {
  const Args Command = {"c++",           "-O2", "-g",  "-Wall", "-Werror",
                        "-fno-tree-vrp", "-MD", "-MT", "x.o",   "-MF",
                        "x.o.d",         "-o",  "x.o", "-c",    "x.cpp"};
  EXPECT_EQ(parseFlags(Command), Args{});
}

TEST(BuildFlags, KeepsLanguageSwitchesThatChangeWhatParses) {
  const Args Command = {"clang++",  "-fno-exceptions", "-fno-rtti", "-stdlib=libc++",
                        "-pthread", "-std=c++20",      "x.cpp"};
  EXPECT_EQ(parseFlags(Command),
            (Args{"-fno-exceptions", "-fno-rtti", "-stdlib=libc++", "-pthread", "-std=c++20"}));
}

TEST(BuildFlags, ATrailingOptionWithoutItsValueIsDropped) {
  EXPECT_EQ(parseFlags(Args{"c++", "-DX", "-I"}), Args{"-DX"});
}

TEST(BuildFlags, TheCompilerItselfIsNotAFlag) { EXPECT_EQ(parseFlags(Args{"-std=c++17"}), Args{}); }

}  // namespace
