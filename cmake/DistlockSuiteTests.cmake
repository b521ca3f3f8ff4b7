# SPDX-License-Identifier: Apache-2.0
# distlock_suite_tests(): one ctest test per GoogleTest suite, and per suite and parameter for
# the value-parameterised suites, where gtest_discover_tests() registers one per case. A case
# in a process of its own shares nothing with the other cases of its suite: each one started
# the suite's server (a redis-server, a Sentinel group, a six-node Cluster, a ZooKeeper JVM)
# that the suite's fixture means to start once. A failing test's output still names each
# failing case (GoogleTest's summary lists them).
#
#   distlock_suite_tests(<target>
#     PREFIX <name prefix>            "integration." gives integration.RedisBehaviour
#     [FILTER <gtest filter>]         only these cases ("-*/zookeeper", "*/zookeeper")
#     [SPLIT_INSTANTIATIONS <name>...]  a test per parameter for the value-parameterised
#                                     suites instantiated under these names ("Backends": a
#                                     backend each, every such suite of it in one process);
#                                     the others' parameters (cases of a table) run in their
#                                     suite's test
#     [LABELS <label>...]
#     [CASE_TIMEOUT <seconds>]        per case (120); a test's TIMEOUT is its cases times this,
#     [MAX_TIMEOUT <seconds>]         at most this (1200)
#     [DISCOVERY_TIMEOUT <seconds>]   for --gtest_list_tests (60)
#     [TEST_LIST <variable>]          set, in ctest, to the names registered
#     [RUN_SERIAL])
#
# Like gtest_discover_tests(DISCOVERY_MODE PRE_TEST), the program lists its cases when ctest
# runs, not when it is built (which would run the sanitizer builds' programs at build time):
# the include file written here runs DistlockSuiteTestsDiscover.cmake when the program is newer
# than the list it wrote last. A value-parameterised suite's test is named after the suite
# without its instantiation prefix; a split instantiation's test after the instantiation and
# the parameter: the cases Backends/LockBehaviour.X/redis_cluster and
# Backends/AsyncAcquire.Y/redis_cluster are the test integration.Backends/redis_cluster, run
# with --gtest_filter=Backends/*.*/redis_cluster, so that the suites share the server their
# fixtures start once a process. Disabled cases (DISABLED_) do not run, as GoogleTest's own
# filter leaves them out.

set(DISTLOCK_SUITE_TESTS_DISCOVER_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/DistlockSuiteTestsDiscover.cmake)

function(distlock_suite_tests target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "RUN_SERIAL"
    "PREFIX;FILTER;CASE_TIMEOUT;MAX_TIMEOUT;DISCOVERY_TIMEOUT;TEST_LIST"
    "LABELS;SPLIT_INSTANTIATIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "distlock_suite_tests: unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  foreach(setting CASE_TIMEOUT:120 MAX_TIMEOUT:1200 DISCOVERY_TIMEOUT:60)
    string(REPLACE ":" ";" setting "${setting}")
    list(GET setting 0 name)
    list(GET setting 1 default)
    if(NOT arg_${name})
      set(arg_${name} ${default})
    endif()
  endforeach()
  if(NOT arg_TEST_LIST)
    set(arg_TEST_LIST ${target}_SUITE_TESTS)
  endif()

  # A target may be registered more than once, with different filters.
  get_property(count TARGET ${target} PROPERTY DISTLOCK_SUITE_TESTS_COUNT)
  if(NOT count)
    set(count 0)
  endif()
  math(EXPR count "${count} + 1")
  set_property(TARGET ${target} PROPERTY DISTLOCK_SUITE_TESTS_COUNT ${count})
  set(base "${CMAKE_CURRENT_BINARY_DIR}/${target}.suites${count}")

  if(arg_RUN_SERIAL)
    set(run_serial TRUE)
  else()
    set(run_serial FALSE)
  endif()
  string(CONCAT content
    "set(_distlock_executable [==[$<TARGET_FILE:${target}>]==])\n"
    "set(_distlock_tests_file [==[${base}_tests.cmake]==])\n"
    "set(_distlock_discover [==[${DISTLOCK_SUITE_TESTS_DISCOVER_SCRIPT}]==])\n"
    "if(NOT EXISTS \"\${_distlock_executable}\")\n"
    "  add_test([==[${arg_PREFIX}${target}_NOT_BUILT]==] [==[${target}_NOT_BUILT]==])\n"
    "else()\n"
    "  if(NOT EXISTS \"\${_distlock_tests_file}\"\n"
    "     OR NOT \"\${_distlock_tests_file}\" IS_NEWER_THAN \"\${_distlock_executable}\"\n"
    "     OR NOT \"\${_distlock_tests_file}\" IS_NEWER_THAN \"\${CMAKE_CURRENT_LIST_FILE}\"\n"
    "     OR NOT \"\${_distlock_tests_file}\" IS_NEWER_THAN \"\${_distlock_discover}\")\n"
    "    include(\"\${_distlock_discover}\")\n"
    "    distlock_write_suite_tests(\n"
    "      EXECUTABLE \"\${_distlock_executable}\"\n"
    "      TESTS_FILE \"\${_distlock_tests_file}\"\n"
    "      WORKING_DIRECTORY [==[${CMAKE_CURRENT_BINARY_DIR}]==]\n"
    "      PREFIX [==[${arg_PREFIX}]==]\n"
    "      FILTER [==[${arg_FILTER}]==]\n"
    "      LABELS [==[${arg_LABELS}]==]\n"
    "      SPLIT_INSTANTIATIONS [==[${arg_SPLIT_INSTANTIATIONS}]==]\n"
    "      LAUNCHER [==[${DISTLOCK_TEST_LAUNCHER}]==]\n"
    "      CASE_TIMEOUT ${arg_CASE_TIMEOUT}\n"
    "      MAX_TIMEOUT ${arg_MAX_TIMEOUT}\n"
    "      DISCOVERY_TIMEOUT ${arg_DISCOVERY_TIMEOUT}\n"
    "      RUN_SERIAL ${run_serial}\n"
    "      TEST_LIST ${arg_TEST_LIST})\n"
    "  endif()\n"
    "  include(\"\${_distlock_tests_file}\")\n"
    "endif()\n")
  file(GENERATE OUTPUT "${base}_include.cmake" CONTENT "${content}")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${base}_include.cmake")
endfunction()
