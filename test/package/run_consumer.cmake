# Builds and runs test/package/consumer against distlock, found one of two ways:
#
#   cmake -DMODE=install|build-tree -DBUILD_DIR=<distlock build> -DWORK_DIR=<scratch dir>
#         -DCONSUMER_DIR=<consumer source> -DGENERATOR=<generator> [-DMAKE_PROGRAM=<path>]
#         [-DCXX_COMPILER=<path>] [-DBUILD_TYPE=<type>] [-DCONFIG=<config>] -P run_consumer.cmake
#
# install:    cmake --install BUILD_DIR --prefix WORK_DIR/prefix, then the consumer with
#             CMAKE_PREFIX_PATH=WORK_DIR/prefix.
# build-tree: the consumer with distlock_DIR=BUILD_DIR.
cmake_minimum_required(VERSION 3.25)

foreach(var MODE BUILD_DIR WORK_DIR CONSUMER_DIR GENERATOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run_consumer.cmake: -D${var}=... is required")
  endif()
endforeach()

if(GENERATOR STREQUAL "Ninja" AND NOT MAKE_PROGRAM)
  # The test's skip expression: this generator cannot run here.
  message("DISTLOCK_PACKAGE_TEST_SKIPPED: ninja not found")
  return()
endif()
if(GENERATOR STREQUAL "Unix Makefiles" AND NOT MAKE_PROGRAM)
  message("DISTLOCK_PACKAGE_TEST_SKIPPED: make not found")
  return()
endif()

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
if(MAKE_PROGRAM)
  list(APPEND config_args -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()
if(CXX_COMPILER)
  list(APPEND config_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
if(BUILD_TYPE)
  list(APPEND config_args -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
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
else()
  message(FATAL_ERROR "run_consumer: MODE must be install or build-tree, not '${MODE}'")
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
run(${CMAKE_COMMAND} ${build_args})

find_program(consumer_exe NAMES consumer PATHS ${WORK_DIR}/consumer-build
  PATH_SUFFIXES ${CONFIG} NO_DEFAULT_PATH NO_CACHE REQUIRED)
run(${consumer_exe})
message(STATUS "run_consumer: ${MODE} with ${GENERATOR}: OK")
