# SPDX-License-Identifier: Apache-2.0
# distlock_add_test(NAME <name> COMMAND <command> [arguments...] [WORKING_DIRECTORY <dir>]):
# add_test() through scripts/test-cpu-time.sh, which records each test's CPU time when
# scripts/run-tests.sh --timings asks for it (ctest measures wall time only). A command that
# names a target runs the target's file, as with add_test().

get_filename_component(DISTLOCK_TEST_LAUNCHER_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/../scripts/test-cpu-time.sh
  ABSOLUTE)
set(DISTLOCK_TEST_LAUNCHER /bin/bash ${DISTLOCK_TEST_LAUNCHER_SCRIPT})

function(distlock_add_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;WORKING_DIRECTORY" "COMMAND")
  if(arg_UNPARSED_ARGUMENTS OR NOT arg_NAME OR NOT arg_COMMAND)
    message(FATAL_ERROR "distlock_add_test: NAME <name> COMMAND <command>... expected")
  endif()
  list(POP_FRONT arg_COMMAND program)
  if(TARGET ${program})
    set(program $<TARGET_FILE:${program}>)
  endif()
  set(directory)
  if(arg_WORKING_DIRECTORY)
    set(directory WORKING_DIRECTORY ${arg_WORKING_DIRECTORY})
  endif()
  add_test(NAME ${arg_NAME}
    COMMAND ${DISTLOCK_TEST_LAUNCHER} ${arg_NAME} ${program} ${arg_COMMAND}
    ${directory})
endfunction()
