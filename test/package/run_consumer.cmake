# SPDX-License-Identifier: Apache-2.0
# Builds a project that uses distlock (test/package/consumer, or examples/) and runs its
# programs, with distlock found one of three ways:
#
#   cmake -DMODE=install|build-tree|deb -DBUILD_DIR=<distlock build> -DWORK_DIR=<scratch dir>
#         -DCONSUMER_DIR=<project source> -DRUNS="<program> <args>[ => <regex>]|..."
#         -DGENERATOR=<generator> -DMAKE_PROGRAM=<path>
#         [-DCXX_COMPILER=<path>] [-DCXX_STANDARD=17|20] [-DBUILD_TYPE=<type>]
#         [-DCONFIG=<config>] [-DTARGETS=<target|...>] -P run_consumer.cmake
#
# install:    cmake --install BUILD_DIR --prefix WORK_DIR/prefix, then the consumer with
#             CMAKE_PREFIX_PATH=WORK_DIR/prefix.
# build-tree: the consumer with distlock_DIR=BUILD_DIR.
# deb:        cpack -G DEB in BUILD_DIR; every package unpacked (dpkg-deb -x: no root, no dpkg
#             database) into WORK_DIR/root, its fields checked (-DCPACK=<cpack>
#             -DEXPECT_PACKAGES="<name> => <regex of its Depends>[&<regex>]|..."), then the
#             consumer with CMAKE_PREFIX_PATH=WORK_DIR/root/usr.
# TARGETS: the consumer's targets to build (all by default). A run with " => <regex>" must
# print something matching the regex on stdout (`&` separates regexes that must all match),
# besides exiting with 0.
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/require_variables.cmake)
require_variables(MODE BUILD_DIR WORK_DIR CONSUMER_DIR RUNS GENERATOR MAKE_PROGRAM)

function(run)
  string(REPLACE ";" " " shown "${ARGN}")
  message(STATUS "run_consumer: ${shown}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "run_consumer: failed (${result}): ${shown}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

set(config_args
  -S ${CONSUMER_DIR} -B ${WORK_DIR}/consumer-build -G ${GENERATOR}
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
list(APPEND config_args -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
if(CXX_COMPILER)
  list(APPEND config_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
if(BUILD_TYPE)
  list(APPEND config_args -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
endif()
if(CXX_STANDARD)
  list(APPEND config_args -DCMAKE_CXX_STANDARD=${CXX_STANDARD} -DCMAKE_CXX_STANDARD_REQUIRED=ON)
endif()

if(MODE STREQUAL "install")
  set(prefix ${WORK_DIR}/prefix)
  set(install_args --install ${BUILD_DIR} --prefix ${prefix})
  if(CONFIG)
    list(APPEND install_args --config ${CONFIG})
  endif()
  run(${CMAKE_COMMAND} ${install_args})
  file(GLOB_RECURSE installed_configs ${prefix}/*/distlockConfig.cmake)
  if(NOT installed_configs)
    message(FATAL_ERROR "run_consumer: no distlockConfig.cmake under ${prefix}")
  endif()
  list(APPEND config_args -DCMAKE_PREFIX_PATH=${prefix})
  # Whatever the consumer finds must come from the prefix, not from the build tree.
  set(expected_dir_prefix ${prefix}/)
elseif(MODE STREQUAL "build-tree")
  list(APPEND config_args -Ddistlock_DIR=${BUILD_DIR})
  set(expected_dir_prefix ${BUILD_DIR})
elseif(MODE STREQUAL "deb")
  require_variables(CPACK EXPECT_PACKAGES)
  include(${CMAKE_CURRENT_LIST_DIR}/unpack_debs.cmake)
  unpack_debs(${CPACK} ${BUILD_DIR} ${WORK_DIR} "${EXPECT_PACKAGES}" root)
  list(APPEND config_args -DCMAKE_PREFIX_PATH=${root}/usr)
  set(expected_dir_prefix ${root}/)
else()
  message(FATAL_ERROR "run_consumer: MODE must be install, build-tree or deb, not '${MODE}'")
endif()

run(${CMAKE_COMMAND} ${config_args})

# Check where find_package found distlock.
file(STRINGS ${WORK_DIR}/consumer-build/CMakeCache.txt found_dir REGEX "^distlock_DIR:")
string(REGEX REPLACE "^distlock_DIR:[A-Z]+=" "" found_dir "${found_dir}")
file(REAL_PATH "${found_dir}" found_real)
file(REAL_PATH "${expected_dir_prefix}" expected_real)
string(FIND "${found_real}/" "${expected_real}" at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "run_consumer: distlock was found in '${found_dir}', expected under '${expected_dir_prefix}'")
endif()

set(build_args --build ${WORK_DIR}/consumer-build)
if(CONFIG)
  list(APPEND build_args --config ${CONFIG})
endif()
if(TARGETS)
  string(REPLACE "|" ";" targets "${TARGETS}")
  list(APPEND build_args --target ${targets})
endif()
run(${CMAKE_COMMAND} ${build_args})

string(REPLACE "|" ";" runs "${RUNS}")
foreach(run_spec IN LISTS runs)
  set(expected "")
  string(FIND "${run_spec}" " => " arrow)
  if(arrow GREATER_EQUAL 0)
    math(EXPR after "${arrow} + 4")
    string(SUBSTRING "${run_spec}" ${after} -1 expected)
    string(SUBSTRING "${run_spec}" 0 ${arrow} run_spec)
  endif()
  separate_arguments(command UNIX_COMMAND "${run_spec}")
  list(POP_FRONT command program)
  file(GLOB_RECURSE found LIST_DIRECTORIES false ${WORK_DIR}/consumer-build/${program})
  list(FILTER found EXCLUDE REGEX "/CMakeFiles/")
  if(NOT found)
    message(FATAL_ERROR "run_consumer: the build made no program '${program}'")
  endif()
  list(GET found 0 executable)
  message(STATUS "run_consumer: ${executable} ${command}")
  execute_process(COMMAND ${executable} ${command} RESULT_VARIABLE result OUTPUT_VARIABLE output)
  message("${output}")
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "run_consumer: failed (${result}): ${program}")
  endif()
  string(REPLACE "&" ";" expected "${expected}")
  foreach(pattern IN LISTS expected)
    if(NOT output MATCHES "${pattern}")
      message(FATAL_ERROR "run_consumer: ${program} printed nothing matching '${pattern}'")
    endif()
  endforeach()
endforeach()
message(STATUS "run_consumer: ${MODE} with ${GENERATOR}: OK")
