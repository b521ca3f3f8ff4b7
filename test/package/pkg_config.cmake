# SPDX-License-Identifier: Apache-2.0
# pkg-config --cflags --libs distlock builds a consumer without CMake: distlock's build is
# installed into a scratch prefix, test/package/consumer/main.cpp is compiled and linked with
# what pkg-config says (PKG_CONFIG_PATH pointing into the prefix), and it runs.
#
#   cmake -DBUILD_DIR=<distlock build> -DWORK_DIR=<scratch> -DCONSUMER=<main.cpp>
#         -DCXX_COMPILER=<c++> -DPKG_CONFIG=<pkg-config> [-DCONFIG=<config>] -P pkg_config.cmake
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/require_variables.cmake)
require_variables(BUILD_DIR WORK_DIR CONSUMER CXX_COMPILER PKG_CONFIG)

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(install_args --install ${BUILD_DIR} --prefix ${prefix})
if(CONFIG)
  list(APPEND install_args --config ${CONFIG})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} ${install_args} OUTPUT_QUIET RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "pkg_config: installing failed")
endif()
file(GLOB_RECURSE pc_files ${prefix}/*/distlock.pc)
list(LENGTH pc_files count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "pkg_config: expected one distlock.pc under ${prefix}, found: ${pc_files}")
endif()
get_filename_component(pc_dir ${pc_files} DIRECTORY)

execute_process(
  COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pc_dir}
          ${PKG_CONFIG} --cflags --libs distlock
  OUTPUT_VARIABLE flags ERROR_VARIABLE problem RESULT_VARIABLE result
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "pkg_config: pkg-config --cflags --libs distlock failed: ${problem}")
endif()
string(FIND "${flags}" "-I${prefix}/" include_at)
string(FIND "${flags}" "-L${prefix}/" library_at)
if(include_at EQUAL -1 OR library_at EQUAL -1)
  message(FATAL_ERROR "pkg_config: the flags do not point into the prefix: ${flags}")
endif()
message(STATUS "pkg_config: ${flags}")
separate_arguments(flag_list UNIX_COMMAND "${flags}")
set(program ${WORK_DIR}/consumer)
execute_process(
  COMMAND ${CXX_COMPILER} -std=c++17 ${CONSUMER} -o ${program} ${flag_list}
  RESULT_VARIABLE result ERROR_VARIABLE problem)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "pkg_config: the consumer did not build with those flags:\n${problem}")
endif()
execute_process(COMMAND ${program} OUTPUT_VARIABLE output RESULT_VARIABLE result)
if(NOT result EQUAL 0 OR NOT output MATCHES "consumer: OK")
  message(FATAL_ERROR "pkg_config: the consumer failed (${result}): ${output}")
endif()
message(STATUS "pkg_config: ${output}")
