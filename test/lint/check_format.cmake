# SPDX-License-Identifier: Apache-2.0
# cmake -DCLANG_FORMAT=<clang-format> -DSOURCE_DIR=<repository> -P check_format.cmake
# Fails, listing them, when sources differ from what clang-format makes of them. Left alone:
# the lit tests and their inputs (their CHECK lines pin columns and line numbers), the
# compile-fail sources (their errors are at fixed places), and the fuzz corpora.
file(GLOB_RECURSE sources RELATIVE ${SOURCE_DIR}
  ${SOURCE_DIR}/include/*.h
  ${SOURCE_DIR}/runtime/*.h ${SOURCE_DIR}/runtime/*.cpp
  ${SOURCE_DIR}/cli/*.h ${SOURCE_DIR}/cli/*.cpp
  ${SOURCE_DIR}/tool/*.h ${SOURCE_DIR}/tool/*.cpp
  ${SOURCE_DIR}/test/*.h ${SOURCE_DIR}/test/*.cpp
  ${SOURCE_DIR}/examples/*.h ${SOURCE_DIR}/examples/*.cpp
  ${SOURCE_DIR}/bench/*.h ${SOURCE_DIR}/bench/*.cpp)
list(FILTER sources EXCLUDE REGEX "^test/tool/[^/]*\\.cpp$")
list(FILTER sources EXCLUDE REGEX "^test/tool/(Inputs|diagnostics)/")
list(FILTER sources EXCLUDE REGEX "^test/unit/compile_fail/")
list(FILTER sources EXCLUDE REGEX "^test/fuzz/corpus/")
list(LENGTH sources count)
if(count EQUAL 0)
  message(FATAL_ERROR "no sources found under ${SOURCE_DIR}")
endif()
execute_process(
  COMMAND ${CLANG_FORMAT} --dry-run --Werror ${sources}
  WORKING_DIRECTORY ${SOURCE_DIR}
  RESULT_VARIABLE result
  ERROR_VARIABLE diagnostics)
if(NOT result EQUAL 0)
  string(REGEX MATCHALL "[^\n]*: error: code should be clang-formatted" offending "${diagnostics}")
  list(TRANSFORM offending REPLACE ":[0-9]+:[0-9]+: error: code should be clang-formatted" "")
  list(REMOVE_DUPLICATES offending)
  string(REPLACE ";" "\n  " offending "${offending}")
  message(FATAL_ERROR "not formatted as .clang-format says (fix: ${CLANG_FORMAT} -i <file>):\n  "
    "${offending}")
endif()
message(STATUS "${count} files formatted")
