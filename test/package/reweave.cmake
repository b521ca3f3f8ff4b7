# SPDX-License-Identifier: Apache-2.0
# Editing an annotated source, or a header it includes, or the target's flags weaves it again
# on the next build; nothing else does (CMake running again included). Checked on a copy of test/package/reweave built against distlock's
# build tree.
#
#   cmake -DBUILD_DIR=<distlock build> -DWORK_DIR=<scratch> -DPROJECT_DIR=<reweave source>
#         -DGENERATOR=<generator> -DMAKE_PROGRAM=<path> [-DCXX_COMPILER=<path>] -P reweave.cmake
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/require_variables.cmake)
require_variables(BUILD_DIR WORK_DIR PROJECT_DIR GENERATOR MAKE_PROGRAM)

file(REMOVE_RECURSE ${WORK_DIR})
file(COPY ${PROJECT_DIR}/ DESTINATION ${WORK_DIR}/source)
set(source ${WORK_DIR}/source)
set(build ${WORK_DIR}/build)

set(config_args -S ${source} -B ${build} -G ${GENERATOR} -Ddistlock_DIR=${BUILD_DIR}
  -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
if(CXX_COMPILER)
  list(APPEND config_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} ${config_args} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "reweave: configuring failed")
endif()

# build(<step> <expected woven sources...>): builds, and checks which sources were woven.
function(build step)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${build}
    OUTPUT_VARIABLE output ERROR_VARIABLE output RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "reweave (${step}): the build failed:\n${output}")
  endif()
  foreach(candidate IN ITEMS main.cpp ledger.cpp)
    string(FIND "${output}" "Weaving ${candidate}" at)
    if(candidate IN_LIST ARGN AND at EQUAL -1)
      message(FATAL_ERROR "reweave (${step}): ${candidate} was not woven again:\n${output}")
    elseif(NOT candidate IN_LIST ARGN AND NOT at EQUAL -1)
      message(FATAL_ERROR "reweave (${step}): ${candidate} was woven again:\n${output}")
    endif()
  endforeach()
  message(STATUS "reweave (${step}): woven again: ${ARGN}")
endfunction()

build("first build" main.cpp ledger.cpp)
execute_process(COMMAND ${CMAKE_COMMAND} -E env DISTLOCK_URL=memory:// ${build}/reweave
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "reweave: the woven program failed (${result})")
endif()
build("nothing changed")
file(APPEND ${source}/locked.h "// edited\n")
build("a header with a locked function changed" main.cpp)
file(APPEND ${source}/ledger.cpp "// edited\n")
build("an annotated source changed" ledger.cpp)
file(APPEND ${source}/unrelated.h "// edited\n")
build("a header nobody includes changed")
file(TOUCH ${source}/CMakeLists.txt)
build("CMake ran again, no flag changed")
file(APPEND ${source}/CMakeLists.txt "target_compile_definitions(reweave PRIVATE REWEAVE_EDIT=1)\n")
build("a compile definition changed" main.cpp ledger.cpp)
file(READ ${source}/CMakeLists.txt project_text)
string(REPLACE "COMPILE_OPTIONS -DLEDGER_SCALE=100" "COMPILE_OPTIONS \"-DLEDGER_SCALE=100;-DLEDGER_EDIT=1\""
  project_text "${project_text}")
file(WRITE ${source}/CMakeLists.txt "${project_text}")
build("a source's own compile options changed" ledger.cpp)

# A source given as a generator expression cannot be woven: configuring says so, naming it.
set(genex_source ${WORK_DIR}/genex_source)
file(MAKE_DIRECTORY ${genex_source})
file(WRITE ${genex_source}/main.cpp "int main() { return 0; }\n")
file(WRITE ${genex_source}/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)
project(distlock_genex_source LANGUAGES CXX)
find_package(distlock CONFIG REQUIRED)
add_executable(genex_source \$<\$<BOOL:1>:main.cpp>)
distlock_weave(genex_source)
")
list(TRANSFORM config_args REPLACE "^${source}$" "${genex_source}")
list(TRANSFORM config_args REPLACE "^${build}$" "${WORK_DIR}/genex_build")
execute_process(COMMAND ${CMAKE_COMMAND} ${config_args}
  OUTPUT_VARIABLE output ERROR_VARIABLE output RESULT_VARIABLE result)
# CMake wraps the message's lines.
string(REGEX REPLACE "[ \t\r\n]+" " " output_line "${output}")
string(FIND "${output_line}" "the source $<$<BOOL:1>:main.cpp> is a generator expression" at)
if(result EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "reweave: a generator-expression source was not refused:\n${output}")
endif()
message(STATUS "reweave: a generator-expression source is refused")
