# Compiles one source with -fsyntax-only and checks the outcome the source itself declares:
#   // EXPECT-ERROR: <regex>   compilation must fail, and the diagnostics must match <regex>
#                              (several such lines: all must match)
#   // EXPECT-SUCCESS          compilation must succeed
#
# cmake -DCOMPILER=<c++> -DSTANDARD=17|20 -DINCLUDE_DIR=<dir> -DSOURCE=<file.cpp>
#       -P check_compile.cmake
foreach(var COMPILER STANDARD INCLUDE_DIR SOURCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_compile.cmake: -D${var}= is required")
  endif()
endforeach()

file(STRINGS "${SOURCE}" expect_errors REGEX "^// EXPECT-ERROR: ")
file(STRINGS "${SOURCE}" expect_success REGEX "^// EXPECT-SUCCESS")
if(expect_errors AND expect_success)
  message(FATAL_ERROR "${SOURCE}: both EXPECT-ERROR and EXPECT-SUCCESS")
endif()
if(NOT expect_errors AND NOT expect_success)
  message(FATAL_ERROR "${SOURCE}: declares neither EXPECT-ERROR nor EXPECT-SUCCESS")
endif()

execute_process(
  COMMAND "${COMPILER}" -std=c++${STANDARD} -fsyntax-only -fdiagnostics-color=never
          "-I${INCLUDE_DIR}" "${SOURCE}"
  RESULT_VARIABLE result
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)

if(expect_success)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${SOURCE} should compile but did not (exit ${result}):\n${output}")
  endif()
  message(STATUS "${SOURCE} compiles, as expected")
  return()
endif()

if(result EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but it must not")
endif()
if(NOT result MATCHES "^[0-9]+$")
  # The compiler did not run at all (not found, crashed): not the failure we look for.
  message(FATAL_ERROR "${SOURCE}: the compiler did not run: ${result}\n${output}")
endif()
foreach(line IN LISTS expect_errors)
  string(REGEX REPLACE "^// EXPECT-ERROR: " "" pattern "${line}")
  if(NOT output MATCHES "${pattern}")
    message(FATAL_ERROR
      "${SOURCE} failed to compile, but without the expected diagnostic\n"
      "  expected (regex): ${pattern}\n"
      "  compiler output:\n${output}")
  endif()
endforeach()
message(STATUS "${SOURCE} fails to compile with the expected diagnostic")
