# SPDX-License-Identifier: Apache-2.0
# cmake -DSOURCE_DIR=<repository> -P check_layers.cmake
# Fails, listing them, when a file of the Redis backend includes one of a later layer. The
# layers, each using only those before it (docs/design.md, "The layout"):
#   transport  connections, their reply loops, the pool, where the master is
#   locks      the lock protocol: scripts, kinds, release notifications
#   topology   one server or Sentinel's master, Cluster, Redlock, and how each waits
#   admin      what operators ask of the server
cmake_minimum_required(VERSION 3.25)

set(layers transport locks topology admin)
set(root ${SOURCE_DIR}/runtime/backends/redis)
file(GLOB_RECURSE sources RELATIVE ${root} ${root}/*.h ${root}/*.cpp)
if(NOT sources)
  message(FATAL_ERROR "no sources found under ${root}")
endif()

set(against "")
set(checked 0)
foreach(source IN LISTS sources)
  string(REGEX MATCH "^[^/]+" layer "${source}")
  list(FIND layers "${layer}" rank)
  if(rank EQUAL -1)
    list(APPEND against "${source}: in no layer (${layers})")
    continue()
  endif()
  math(EXPR checked "${checked} + 1")
  file(STRINGS ${root}/${source} includes REGEX "^#include \"backends/redis/")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^#include \"backends/redis/([^/\"]+)/.*" "\\1" used "${line}")
    list(FIND layers "${used}" used_rank)
    if(used_rank GREATER rank)
      string(REGEX REPLACE "^#include " "" header "${line}")
      list(APPEND against "${source}: ${layer} includes ${header}, of the later layer ${used}")
    endif()
  endforeach()
endforeach()

if(against)
  list(LENGTH against count)
  string(REPLACE ";" "\n  " against "${against}")
  message(FATAL_ERROR "${count} includes go against the Redis backend's layers "
    "(${layers}, each using only those before it): move the code to the layer that uses it, "
    "or what it uses to an earlier one:\n  ${against}")
endif()
message(STATUS "${checked} files of the Redis backend include no later layer")
