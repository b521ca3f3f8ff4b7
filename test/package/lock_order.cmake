# SPDX-License-Identifier: Apache-2.0
# The lock-order check of distlock_weave(), on test/package/lock_order built against
# distlock's build tree: without a cycle the target builds, warns of a nested lock of one type
# under another key, runs, and writes <target>.distlock-locks.json, checked field by field;
# with a cycle the build fails naming both call sites and writes no inventory; with the check
# off the same cycle builds.
#
#   cmake -DBUILD_DIR=<distlock build> -DWORK_DIR=<scratch> -DPROJECT_DIR=<lock_order source>
#         -DGENERATOR=<generator> -DMAKE_PROGRAM=<path> [-DCXX_COMPILER=<path>] -P lock_order.cmake
cmake_minimum_required(VERSION 3.25)

include(${CMAKE_CURRENT_LIST_DIR}/require_variables.cmake)
require_variables(BUILD_DIR WORK_DIR PROJECT_DIR GENERATOR MAKE_PROGRAM)
file(REMOVE_RECURSE ${WORK_DIR})

# build(<name> <build directory name> <expected result: 0 or failed> <output variable>
#       [cache options...])
function(build name directory expected output_var)
  set(build ${WORK_DIR}/${directory})
  set(config_args -S ${PROJECT_DIR} -B ${build} -G ${GENERATOR} -Ddistlock_DIR=${BUILD_DIR}
    -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM} ${ARGN})
  if(CXX_COMPILER)
    list(APPEND config_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} ${config_args} RESULT_VARIABLE result
    OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "lock_order (${name}): configuring failed:\n${output}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${build}
    OUTPUT_VARIABLE output ERROR_VARIABLE output RESULT_VARIABLE result)
  if(expected STREQUAL "0" AND NOT result EQUAL 0)
    message(FATAL_ERROR "lock_order (${name}): the build failed:\n${output}")
  elseif(NOT expected STREQUAL "0" AND result EQUAL 0)
    message(FATAL_ERROR "lock_order (${name}): the build passed:\n${output}")
  endif()
  set(${output_var} "${output}" PARENT_SCOPE)
endfunction()

function(expect_in name text pattern)
  if(NOT text MATCHES "${pattern}")
    message(FATAL_ERROR "lock_order (${name}): no '${pattern}' in:\n${text}")
  endif()
endfunction()

# expect_json(<json> <expected value> <path...>)
function(expect_json json expected)
  string(JSON actual ERROR_VARIABLE problem GET "${json}" ${ARGN})
  if(problem)
    message(FATAL_ERROR "lock_order: the inventory has no ${ARGN}: ${problem}")
  endif()
  if(NOT actual STREQUAL expected)
    message(FATAL_ERROR "lock_order: inventory ${ARGN} is '${actual}', expected '${expected}'")
  endif()
endfunction()

# Without the cycle: built, warned of restock's second stock lock, run, inventory written.
build(acyclic acyclic 0 output)
expect_in(acyclic "${output}"
  "stock.cpp:11:10: warning: 'restock' holds a lock of type 'stock' and calls 'reserve_stock', which takes another lock of that type")
if(output MATCHES "error:|'refund' holds|'charge' holds")
  message(FATAL_ERROR "lock_order (acyclic): a finding beyond the one warning:\n${output}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env DISTLOCK_URL=memory:// ${WORK_DIR}/acyclic/orders
  OUTPUT_VARIABLE ran RESULT_VARIABLE result)
if(NOT result EQUAL 0 OR NOT ran MATCHES "charged 16, restocked 16")
  message(FATAL_ERROR "lock_order (acyclic): the woven program failed (${result}): ${ran}")
endif()

set(inventory_file ${WORK_DIR}/acyclic/orders.distlock-locks.json)
file(READ ${inventory_file} inventory)
expect_json("${inventory}" 1 version)
expect_json("${inventory}" orders target)
string(JSON count LENGTH "${inventory}" functions)
if(NOT count EQUAL 4)
  message(FATAL_ERROR "lock_order: ${count} functions in the inventory, expected 4:\n${inventory}")
endif()
# Sorted by name: charge, refund, reserve_stock, restock.
expect_json("${inventory}" charge functions 0 name)
expect_json("${inventory}" payment functions 0 type)
expect_json("${inventory}" "\"payment\"" functions 0 type_as_written)
expect_json("${inventory}" 5s functions 0 ttl)
string(JSON options LENGTH "${inventory}" functions 0 options)
if(NOT options EQUAL 0)
  message(FATAL_ERROR "lock_order: charge has ${options} options, expected none")
endif()
expect_json("${inventory}" order functions 0 keys 0 parameter)
expect_json("${inventory}" 0 functions 0 keys 0 index)
expect_json("${inventory}" "" functions 0 keys 0 path)
expect_json("${inventory}" 3 functions 0 line)
expect_json("${inventory}" 5 functions 0 column)
string(JSON file GET "${inventory}" functions 0 file)
if(NOT file MATCHES "/payments\\.cpp$")
  message(FATAL_ERROR "lock_order: charge is in '${file}', expected payments.cpp")
endif()
expect_json("${inventory}" reserve_stock functions 0 calls 0 name)
expect_json("${inventory}" 5 functions 0 calls 0 line)
expect_json("${inventory}" 10 functions 0 calls 0 column)
expect_json("${inventory}" "\"sku-\" + order" functions 0 calls 0 arguments 0)
expect_json("${inventory}" 1 functions 0 calls 0 arguments 1)
string(JSON usr GET "${inventory}" functions 2 usr)
expect_json("${inventory}" "${usr}" functions 0 calls 0 usr)
expect_json("${inventory}" refund functions 1 name)
expect_json("${inventory}" charge functions 1 calls 0 name)
expect_json("${inventory}" reserve_stock functions 2 name)
expect_json("${inventory}" stock functions 2 type)
expect_json("${inventory}" "distlock::wait(2s)" functions 2 options 0)
expect_json("${inventory}" 0 functions 2 keys 0 index)
expect_json("${inventory}" sku functions 2 keys 0 parameter)
expect_json("${inventory}" restock functions 3 name)
string(JSON calls LENGTH "${inventory}" functions 3 calls)
if(NOT calls EQUAL 1)
  message(FATAL_ERROR "lock_order: restock makes ${calls} locked calls, expected 1")
endif()

# The cycle: the build fails at the check, naming both call sites, and leaves no inventory.
build(cyclic cyclic failed output -DWITH_CYCLE=ON)
expect_in(cyclic "${output}"
  "payments.cpp:5:10: error: lock-order cycle 'payment' -> 'stock' -> 'payment'")
expect_in(cyclic "${output}"
  "payments.cpp:5:10: note: 'charge' holds 'payment' and calls 'reserve_stock' here, which takes 'stock'")
expect_in(cyclic "${output}"
  "stock.cpp:8:3: note: 'restock' holds 'stock' and calls 'refund' here, which takes 'payment'")
if(EXISTS ${WORK_DIR}/cyclic/orders.distlock-locks.json)
  message(FATAL_ERROR "lock_order (cyclic): an inventory was written for a failed check")
endif()

# The same cycle with DISTLOCK_LOCK_ORDER_CHECK turned OFF in the build the check refused (as a
# user would, rather than from nothing: its sources are woven and compiled already): built,
# inventory written.
build(unchecked cyclic 0 output -DWITH_CYCLE=ON -DORDER_CHECK=OFF)
if(NOT EXISTS ${WORK_DIR}/cyclic/orders.distlock-locks.json)
  message(FATAL_ERROR "lock_order (unchecked): no inventory")
endif()
message(STATUS "lock_order: acyclic built and checked, cyclic refused, unchecked built")
