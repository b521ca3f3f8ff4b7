# SPDX-License-Identifier: Apache-2.0
# The steps of the fuzz.* ctest tests (registered by register.cmake), in script mode.
#
# Build the fuzz project (test/fuzz/CMakeLists.txt) with clang:
#   cmake -DSTEP=build -DSOURCE_DIR=<test/fuzz> -DBINARY_DIR=<scratch build dir>
#         -DGENERATOR=<generator> -DMAKE_PROGRAM=<path> -DC_COMPILER=<clang> -DCXX_COMPILER=<clang++>
#         [-DJOBS=<n>] -P run_fuzz.cmake
# Run one fuzzer for a bounded time on a fresh copy of its seed corpus; fails on any crash,
# leak, timeout, out-of-memory or broken invariant (all of which make libFuzzer exit non-zero
# and write the input to WORK_DIR):
#   cmake -DSTEP=run -DFUZZER=<binary> -DSEEDS=<seed corpus dir> -DWORK_DIR=<scratch dir>
#         [-DDICT=<libFuzzer dictionary>] [-DSECONDS=15] -P run_fuzz.cmake
cmake_minimum_required(VERSION 3.25)

function(require)
  foreach(var IN LISTS ARGN)
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
      message(FATAL_ERROR "run_fuzz.cmake: -D${var}=... is required")
    endif()
  endforeach()
endfunction()

function(run)
  string(REPLACE ";" " " shown "${ARGN}")
  message(STATUS "run_fuzz: ${shown}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "run_fuzz: failed (${result}): ${shown}")
  endif()
endfunction()

require(STEP)
if(STEP STREQUAL "build")
  require(SOURCE_DIR BINARY_DIR GENERATOR MAKE_PROGRAM C_COMPILER CXX_COMPILER)
  if(NOT JOBS)
    cmake_host_system_information(RESULT JOBS QUERY NUMBER_OF_LOGICAL_CORES)
  endif()
  # Configured every time (a second or two): picks up edits of the project itself.
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BINARY_DIR} -G ${GENERATOR}
    -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}
    -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
    # libFuzzer's advice, and a third less build time than -O2 -g: line tables are all a
    # crash's stack trace needs.
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG")
  run(${CMAKE_COMMAND} --build ${BINARY_DIR} --parallel ${JOBS})
elseif(STEP STREQUAL "run")
  require(FUZZER SEEDS WORK_DIR)
  if(NOT SECONDS)
    set(SECONDS 15)
  endif()
  if(NOT EXISTS ${FUZZER})
    message(FATAL_ERROR "run_fuzz: ${FUZZER} is not built (the fuzz.build test builds it)")
  endif()
  # libFuzzer adds what it finds to the first corpus directory: a copy, never the seeds.
  file(REMOVE_RECURSE ${WORK_DIR})
  file(MAKE_DIRECTORY ${WORK_DIR}/artifacts)
  file(COPY ${SEEDS}/ DESTINATION ${WORK_DIR}/corpus)
  set(ENV{UBSAN_OPTIONS} "print_stacktrace=1:halt_on_error=1")
  set(ENV{ASAN_OPTIONS} "detect_leaks=1:abort_on_error=0")
  set(command ${FUZZER} -max_total_time=${SECONDS} -timeout=5 -rss_limit_mb=2048
    -print_final_stats=1 -artifact_prefix=${WORK_DIR}/artifacts/)
  if(DICT)
    list(APPEND command -dict=${DICT})
  endif()
  list(APPEND command ${WORK_DIR}/corpus)
  string(REPLACE ";" " " shown "${command}")
  message(STATUS "run_fuzz: ${shown}")
  execute_process(COMMAND ${command} RESULT_VARIABLE result)
  file(GLOB artifacts ${WORK_DIR}/artifacts/*)
  if(NOT result EQUAL 0 OR artifacts)
    set(reproduce "")
    foreach(artifact IN LISTS artifacts)
      string(APPEND reproduce "\n  ${FUZZER} ${artifact}")
    endforeach()
    message(FATAL_ERROR "run_fuzz: the fuzzer failed (exit ${result}); the input is above "
      "(bytes and base64). Reproduce with:${reproduce}")
  endif()
else()
  message(FATAL_ERROR "run_fuzz.cmake: STEP must be build or run, not '${STEP}'")
endif()
