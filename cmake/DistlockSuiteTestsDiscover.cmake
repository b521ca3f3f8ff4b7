# SPDX-License-Identifier: Apache-2.0
# Included by ctest through the include file distlock_suite_tests() writes
# (DistlockSuiteTests.cmake): lists a GoogleTest program's cases and writes the ctest script
# that registers one test per suite, and per suite and parameter for the value-parameterised
# suites.

# ctest reads this with CMake's oldest policies; the functions keep those they are defined with.
cmake_policy(PUSH)
cmake_policy(VERSION 3.25)

# _distlock_list_cases(<out_var> <executable> <timeout> [<gtest filter>]): the cases, as
# "Suite.Case" ("Backends/LockBehaviour.Renews/redis"), in the program's order.
function(_distlock_list_cases out_var executable timeout)
  set(filter_argument)
  if(ARGN)
    set(filter_argument "--gtest_filter=${ARGN}")
  endif()
  execute_process(
    COMMAND "${executable}" --gtest_list_tests ${filter_argument}
    TIMEOUT ${timeout}
    OUTPUT_VARIABLE output
    ERROR_VARIABLE errors
    RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR
      "${executable} --gtest_list_tests ${filter_argument} failed (${result}):\n${output}${errors}")
  endif()
  # The comments after a name ("  # GetParam() = redis://") may hold any character, ';' and
  # '[' among them, which CMake's lists would take apart: they go before the split into lines.
  string(REGEX REPLACE " +#[^\n]*" "" output "${output}")
  string(REPLACE "\n" ";" lines "${output}")
  set(cases)
  set(suite)
  foreach(line IN LISTS lines)
    if(line MATCHES "^  ([^ ]+)$")
      if(NOT suite)
        message(FATAL_ERROR "${executable} listed a case before any suite: ${line}")
      endif()
      list(APPEND cases "${suite}.${CMAKE_MATCH_1}")
    elseif(line MATCHES "^([A-Za-z0-9_/]+)\\.$")
      set(suite "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  foreach(case IN LISTS cases)
    if(NOT case MATCHES "^[A-Za-z0-9_/]+\\.[A-Za-z0-9_/]+$")
      message(FATAL_ERROR "${executable}: a case name this script cannot pass on: ${case}")
    endif()
  endforeach()
  set(${out_var} "${cases}" PARENT_SCOPE)
endfunction()

# _distlock_group_of(<out_var> <case> <instantiations split>): the gtest filter that selects
# the case's suite, or, when the suite's instantiation is one of those split, every suite of
# that instantiation with the case's parameter: "Backends/*.*/redis" for
# Backends/LockBehaviour.Renews/redis with Backends split, so that the suites of one backend
# share its server in one process. A case name holds a '/' only as the parameter's separator
# (C++ names cannot).
function(_distlock_group_of out_var case split)
  string(REGEX MATCH "^[^.]+" suite "${case}")
  string(REGEX REPLACE "^[^.]+\\." "" name "${case}")
  string(REGEX REPLACE "/.*" "" instantiation "${suite}")
  # The parameter's match last: each MATCHES sets CMAKE_MATCH_1 anew.
  if(suite MATCHES "/" AND instantiation IN_LIST split AND name MATCHES "/([^/]+)$")
    set(${out_var} "${instantiation}/*.*/${CMAKE_MATCH_1}" PARENT_SCOPE)
  else()
    set(${out_var} "${suite}.*" PARENT_SCOPE)
  endif()
endfunction()

function(distlock_write_suite_tests)
  cmake_parse_arguments(arg ""
    "EXECUTABLE;TESTS_FILE;WORKING_DIRECTORY;PREFIX;FILTER;CASE_TIMEOUT;MAX_TIMEOUT;DISCOVERY_TIMEOUT;RUN_SERIAL;TEST_LIST"
    "LABELS;SPLIT_INSTANTIATIONS;LAUNCHER" ${ARGN})

  _distlock_list_cases(selected "${arg_EXECUTABLE}" ${arg_DISCOVERY_TIMEOUT} ${arg_FILTER})
  set(groups)
  foreach(case IN LISTS selected)
    _distlock_group_of(group "${case}" "${arg_SPLIT_INSTANTIATIONS}")
    if(NOT group IN_LIST groups)
      list(APPEND groups "${group}")
      set("cases_of_${group}")
    endif()
    list(APPEND "cases_of_${group}" "${case}")
  endforeach()

  # A group's pattern runs each of its cases, also those FILTER leaves out: where FILTER takes
  # part of a group, the group's test names its cases one by one instead.
  if(arg_FILTER)
    _distlock_list_cases(all "${arg_EXECUTABLE}" ${arg_DISCOVERY_TIMEOUT})
    foreach(case IN LISTS all)
      _distlock_group_of(group "${case}" "${arg_SPLIT_INSTANTIATIONS}")
      if(NOT DEFINED "all_in_${group}")
        set("all_in_${group}" 0)
      endif()
      math(EXPR "all_in_${group}" "${all_in_${group}} + 1")
    endforeach()
  endif()

  set(launcher "")
  foreach(part IN LISTS arg_LAUNCHER)
    string(APPEND launcher "[==[${part}]==] ")
  endforeach()

  set(script "")
  set(names)
  foreach(group IN LISTS groups)
    list(LENGTH "cases_of_${group}" cases)
    set(filter "${group}")
    if(arg_FILTER AND NOT cases EQUAL "${all_in_${group}}")
      list(JOIN "cases_of_${group}" ":" filter)
    endif()

    # Backends/redis for Backends/*.*/redis; RedisCutExchange for Connections/RedisCutExchange.*;
    # RedisBehaviour for RedisBehaviour.*. Two instantiations of one suite keep their prefixes.
    if(group MATCHES "^([^/.]+)/\\*\\.\\*/(.+)$")
      set(name "${CMAKE_MATCH_1}/${CMAKE_MATCH_2}")
    elseif(group MATCHES "^[^/.]+/([^/.]+)\\.\\*/(.+)$")
      set(name "${CMAKE_MATCH_1}/${CMAKE_MATCH_2}")
    elseif(group MATCHES "^[^/.]+/([^/.]+)\\.\\*$")
      set(name "${CMAKE_MATCH_1}")
    else()
      string(REGEX REPLACE "\\.\\*$" "" name "${group}")
    endif()
    if("${arg_PREFIX}${name}" IN_LIST names)
      string(REGEX REPLACE "\\.\\*" "" name "${group}")
    endif()
    set(name "${arg_PREFIX}${name}")
    list(APPEND names "${name}")

    math(EXPR timeout "${cases} * ${arg_CASE_TIMEOUT}")
    if(timeout GREATER arg_MAX_TIMEOUT)
      set(timeout ${arg_MAX_TIMEOUT})
    endif()
    string(APPEND script
      "add_test([==[${name}]==] ${launcher}[==[${name}]==] [==[${arg_EXECUTABLE}]==]\n"
      "  [==[--gtest_filter=${filter}]==])\n"
      "set_tests_properties([==[${name}]==] PROPERTIES\n"
      "  WORKING_DIRECTORY [==[${arg_WORKING_DIRECTORY}]==]\n"
      "  LABELS [==[${arg_LABELS}]==]\n"
      "  TIMEOUT ${timeout}\n"
      # Before any run has measured them (a fresh clone), the suites with the most cases start
      # first, so that a long suite does not start last beside an idle core.
      "  COST ${cases}\n"
      "  RUN_SERIAL ${arg_RUN_SERIAL})\n")
  endforeach()
  string(APPEND script "set(${arg_TEST_LIST} [==[${names}]==])\n")
  file(WRITE "${arg_TESTS_FILE}" "${script}")
endfunction()

cmake_policy(POP)
