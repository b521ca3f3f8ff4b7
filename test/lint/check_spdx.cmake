# SPDX-License-Identifier: Apache-2.0
# cmake -DSOURCE_DIR=<repository> [-DFIX=ON [-DFIX_EXCLUDE=<regex>]] -P check_spdx.cmake
# Fails, listing them, when source files do not carry the license line
#   SPDX-License-Identifier: Apache-2.0
# in a comment on their first line (their second after a #! line): `//` in C++, Java and
# JavaScript, `#` in CMake, Python and shell, `--` in Lua. With FIX=ON it adds the line to the
# files that lack it (but those whose path matches FIX_EXCLUDE) instead of failing.
# Left alone, as by check_format.cmake, because their line numbers are pinned by what checks
# them: the lit tests and their inputs, the compile-fail sources, the fuzz corpora, and the
# lock-order project of test/package (lock_order.cmake expects diagnostics at fixed lines).
cmake_minimum_required(VERSION 3.25)

set(license "SPDX-License-Identifier: Apache-2.0")
set(patterns *.h *.hpp *.c *.cc *.cpp *.java *.js *.py *.sh *.sh.in *.lua *.cmake *.cmake.in
  CMakeLists.txt)
# The top-level CMakeLists.txt by name: a recursive glob from the top would reach the build
# trees (build/, build-asan/...) and the projects the tests generate there.
set(globs "")
foreach(dir IN ITEMS bench cli cmake docs examples include runtime scripts test tool)
  foreach(pattern IN LISTS patterns)
    list(APPEND globs ${SOURCE_DIR}/${dir}/${pattern})
  endforeach()
endforeach()
file(GLOB_RECURSE sources RELATIVE ${SOURCE_DIR} ${globs})
list(APPEND sources CMakeLists.txt)
list(FILTER sources EXCLUDE REGEX "/node_modules/")
list(FILTER sources EXCLUDE REGEX "^test/tool/[^/]*\\.cpp$")
list(FILTER sources EXCLUDE REGEX "^test/tool/(Inputs|diagnostics)/")
list(FILTER sources EXCLUDE REGEX "^test/unit/compile_fail/")
list(FILTER sources EXCLUDE REGEX "^test/fuzz/corpus/")
list(FILTER sources EXCLUDE REGEX "^test/package/lock_order/[^/]*\\.(cpp|h)$")
list(REMOVE_DUPLICATES sources)
list(LENGTH sources count)
if(count EQUAL 0)
  message(FATAL_ERROR "no sources found under ${SOURCE_DIR}")
endif()

set(missing "")
foreach(source IN LISTS sources)
  if(source MATCHES "\\.(h|hpp|c|cc|cpp|java|js)$")
    set(comment "//")
  elseif(source MATCHES "\\.lua$")
    set(comment "--")
  else()
    set(comment "#")
  endif()
  file(READ ${SOURCE_DIR}/${source} text)
  # The first line, or the second after a #! line.
  set(head "${text}")
  if(text MATCHES "^#!")
    string(FIND "${text}" "\n" end)
    math(EXPR after "${end} + 1")
    string(SUBSTRING "${text}" 0 ${after} shebang)
    string(SUBSTRING "${text}" ${after} -1 head)
  else()
    set(shebang "")
  endif()
  string(FIND "${head}" "\n" end)
  string(SUBSTRING "${head}" 0 ${end} first_line)
  if(first_line STREQUAL "${comment} ${license}")
    continue()
  endif()
  if(FIX AND NOT (FIX_EXCLUDE AND source MATCHES "${FIX_EXCLUDE}"))
    file(WRITE ${SOURCE_DIR}/${source} "${shebang}${comment} ${license}\n${head}")
  else()
    list(APPEND missing ${source})
  endif()
endforeach()

if(missing)
  list(LENGTH missing missing_count)
  string(REPLACE ";" "\n  " missing "${missing}")
  message(FATAL_ERROR "${missing_count} source files lack the line '${license}' at the top "
    "(fix: cmake -DSOURCE_DIR=<repository> -DFIX=ON -P test/lint/check_spdx.cmake):\n  ${missing}")
endif()
message(STATUS "${count} source files carry the license line")
