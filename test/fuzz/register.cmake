# SPDX-License-Identifier: Apache-2.0
# The fuzz.* ctest tests, included from test/CMakeLists.txt:
#   fuzz.build                 configures and builds test/fuzz (a project of its own, built
#                              with clang++-<llvm version>: libFuzzer) into this build tree
#   fuzz.attribute_arguments   run the fuzzers for DISTLOCK_FUZZ_SECONDS on a copy of their
#   fuzz.key_encoding          seed corpus (test/fuzz/corpus/<name>)
# Label `fuzz`. Off with -DDISTLOCK_BUILD_FUZZ=OFF; needs the tool's LLVM/Clang and
# libFuzzer's runtime (Debian: libclang-rt-<version>-dev).
option(DISTLOCK_BUILD_FUZZ "Fuzz the attribute reader and the key encoding in ctest (clang, libFuzzer)"
  ${DISTLOCK_BUILD_TOOL})
set(DISTLOCK_FUZZ_SECONDS 10 CACHE STRING "How long each fuzz.* test fuzzes, in seconds")

if(DISTLOCK_BUILD_FUZZ)
  if(NOT DISTLOCK_BUILD_TOOL)
    message(FATAL_ERROR "DISTLOCK_BUILD_FUZZ needs DISTLOCK_BUILD_TOOL (the tool's LLVM/Clang)")
  endif()
  find_program(DISTLOCK_FUZZ_CXX NAMES clang++-${DISTLOCK_LLVM_VERSION}
    HINTS ${LLVM_TOOLS_BINARY_DIR})
  find_program(DISTLOCK_FUZZ_CC NAMES clang-${DISTLOCK_LLVM_VERSION}
    HINTS ${LLVM_TOOLS_BINARY_DIR})
  if(NOT DISTLOCK_FUZZ_CXX OR NOT DISTLOCK_FUZZ_CC)
    message(FATAL_ERROR "the fuzz tests need clang-${DISTLOCK_LLVM_VERSION} (Debian: apt-get "
      "install clang-${DISTLOCK_LLVM_VERSION} libclang-rt-${DISTLOCK_LLVM_VERSION}-dev), or "
      "configure with -DDISTLOCK_BUILD_FUZZ=OFF")
  endif()
  # The generator of this build when it is a single-configuration one, else Ninja or Make.
  if(CMAKE_GENERATOR STREQUAL "Ninja" OR CMAKE_GENERATOR STREQUAL "Unix Makefiles")
    set(distlock_fuzz_generator ${CMAKE_GENERATOR})
    set(distlock_fuzz_make ${CMAKE_MAKE_PROGRAM})
  else()
    find_program(DISTLOCK_FUZZ_NINJA NAMES ninja ninja-build)
    find_program(DISTLOCK_FUZZ_MAKE NAMES gmake make)
    if(DISTLOCK_FUZZ_NINJA)
      set(distlock_fuzz_generator Ninja)
      set(distlock_fuzz_make ${DISTLOCK_FUZZ_NINJA})
    else()
      set(distlock_fuzz_generator "Unix Makefiles")
      set(distlock_fuzz_make ${DISTLOCK_FUZZ_MAKE})
    endif()
  endif()

  set(distlock_fuzz_source ${CMAKE_CURRENT_LIST_DIR})
  set(distlock_fuzz_binary ${PROJECT_BINARY_DIR}/test/fuzz)
  distlock_add_test(NAME fuzz.build
    COMMAND ${CMAKE_COMMAND}
      -DSTEP=build
      -DSOURCE_DIR=${distlock_fuzz_source}
      -DBINARY_DIR=${distlock_fuzz_binary}/build
      -DGENERATOR=${distlock_fuzz_generator}
      -DMAKE_PROGRAM=${distlock_fuzz_make}
      -DC_COMPILER=${DISTLOCK_FUZZ_CC}
      -DCXX_COMPILER=${DISTLOCK_FUZZ_CXX}
      -P ${distlock_fuzz_source}/run_fuzz.cmake)
  set_tests_properties(fuzz.build PROPERTIES
    LABELS fuzz TIMEOUT 900 PROCESSORS 2 FIXTURES_SETUP distlock_fuzz_build)

  foreach(fuzzer IN ITEMS attribute_arguments key_encoding)
    distlock_add_test(NAME fuzz.${fuzzer}
      COMMAND ${CMAKE_COMMAND}
        -DSTEP=run
        -DFUZZER=${distlock_fuzz_binary}/build/${fuzzer}_fuzzer
        -DSEEDS=${distlock_fuzz_source}/corpus/${fuzzer}
        -DDICT=${distlock_fuzz_source}/${fuzzer}.dict
        -DWORK_DIR=${distlock_fuzz_binary}/run/${fuzzer}
        -DSECONDS=${DISTLOCK_FUZZ_SECONDS}
        -P ${distlock_fuzz_source}/run_fuzz.cmake)
    math(EXPR distlock_fuzz_timeout "${DISTLOCK_FUZZ_SECONDS} + 120")
    set_tests_properties(fuzz.${fuzzer} PROPERTIES
      LABELS fuzz TIMEOUT ${distlock_fuzz_timeout} FIXTURES_REQUIRED distlock_fuzz_build)
  endforeach()
endif()
