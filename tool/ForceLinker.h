// SPDX-License-Identifier: Apache-2.0
//===- ForceLinker.h - Keep the attribute registrations linked ------------===//
//
// Include in the one source of each program that parses distlock attributes
// (the tool's main, its unit tests): the reference makes the linker keep
// Attributes.cpp, whose static initializers register the attributes, as
// clang-tidy's ClangTidyForceLinker.h does for its modules.
//
//===----------------------------------------------------------------------===//

#ifndef DISTLOCK_TOOL_FORCELINKER_H
#define DISTLOCK_TOOL_FORCELINKER_H

namespace distlock {
namespace weave {

extern volatile int AttributesAnchorSource;
[[maybe_unused]] static int AttributesAnchorDestination =
    AttributesAnchorSource;

} // namespace weave
} // namespace distlock

#endif
