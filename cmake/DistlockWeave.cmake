# SPDX-License-Identifier: Apache-2.0
# distlock_weave(<target> [SOURCES <source>...] [SOURCE_ROOT <dir>]
#                [DISTLOCK_LOCK_ORDER_CHECK ON|OFF])
#
# Weaves the lock guards of [[distlock::lock(...)]] functions into <target>: each C++ source
# (or each of SOURCES) is replaced in the target by its woven copy, made by distlock-weave.
# The weaver parses a source with the flags the build compiles its copy with (the target
# exports its compile commands; the weaver reads the copy's entry): the same C++ standard,
# whether set by CXX_STANDARD, raised by compile features or given in options, the same
# include directories and macros; in a unity build each woven copy is compiled on its own, so
# that it has a command of its own. Headers under
# SOURCE_ROOT (default: the calling project's source directory) that a source reads are
# copied, woven, beside it, and the woven sources include those copies, so functions defined
# in headers are locked too. A source's own COMPILE_DEFINITIONS, COMPILE_OPTIONS,
# INCLUDE_DIRECTORIES and COMPILE_FLAGS, as set before this call, go with its woven copy. A source is woven again when it,
# a header it reads, or those flags change. A source given as a generator expression cannot be
# woven (its files are known only when the build is generated): that is an error, unless
# SOURCES leaves it out ($<TARGET_OBJECTS:...> is let through).
#
# The weaver records each locked function it weaves; distlock-lock-order merges the records
# into ${CMAKE_BINARY_DIR}/<target>.distlock-locks.json before <target> builds, and fails the
# build on a lock-order cycle among the target's locked functions (a locked function calling
# another directly, in opposite orders elsewhere) and on a locked coroutine that takes its own
# lock type again through them. DISTLOCK_LOCK_ORDER_CHECK OFF writes the inventory without
# the check.
include_guard(GLOBAL)

function(distlock_weave target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SOURCE_ROOT;DISTLOCK_LOCK_ORDER_CHECK" "SOURCES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "distlock_weave(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}; "
                        "write distlock_weave(<target> [SOURCES <source>...] [SOURCE_ROOT <dir>] "
                        "[DISTLOCK_LOCK_ORDER_CHECK ON|OFF])")
  endif()
  set(order_check ON)
  if(DEFINED ARG_DISTLOCK_LOCK_ORDER_CHECK)
    set(order_check ${ARG_DISTLOCK_LOCK_ORDER_CHECK})
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "distlock_weave(${target}): no such target; call it after add_executable or add_library")
  endif()
  if(NOT TARGET distlock::weave OR NOT TARGET distlock::lock-order)
    message(FATAL_ERROR "distlock_weave(${target}): the distlock::weave tool is missing; "
                        "build distlock with DISTLOCK_BUILD_TOOL=ON")
  endif()

  get_target_property(target_source_dir ${target} SOURCE_DIR)
  get_target_property(target_binary_dir ${target} BINARY_DIR)
  set(source_root ${PROJECT_SOURCE_DIR})
  if(ARG_SOURCE_ROOT)
    get_filename_component(source_root ${ARG_SOURCE_ROOT} ABSOLUTE BASE_DIR ${target_source_dir})
  endif()
  set(woven_root ${target_binary_dir}/distlock-woven/${target})

  if(NOT CMAKE_GENERATOR MATCHES "^(Ninja|Unix Makefiles)$")
    message(FATAL_ERROR "distlock_weave(${target}): the weaver reads the build's compile "
                        "commands, which CMake writes for the Ninja and Makefile generators "
                        "only; generate with -G Ninja or -G \"Unix Makefiles\"")
  endif()
  set_property(TARGET ${target} PROPERTY EXPORT_COMPILE_COMMANDS ON)
  # compile_commands.json is rewritten at every generation; each source's <woven>.flags only
  # when what makes its flags changes, so only such a change weaves it again.
  string(TOUPPER "${CMAKE_BUILD_TYPE}" build_type)
  set(target_flags
"standard $<TARGET_PROPERTY:${target},CXX_STANDARD> $<TARGET_PROPERTY:${target},CXX_EXTENSIONS>
features $<TARGET_PROPERTY:${target},COMPILE_FEATURES>
includes $<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>
definitions $<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>
options $<TARGET_PROPERTY:${target},COMPILE_OPTIONS>
flags ${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${build_type}}
")

  get_target_property(all_sources ${target} SOURCES)
  set(to_weave ${all_sources})
  if(ARG_SOURCES)
    set(to_weave ${ARG_SOURCES})
  endif()

  set(woven_sources)
  set(inventories)
  foreach(source IN LISTS all_sources)
    if(source MATCHES "\\$<" AND source IN_LIST to_weave
       AND NOT source MATCHES "^\\$<TARGET_OBJECTS:")
      message(FATAL_ERROR "distlock_weave(${target}): the source ${source} is a generator "
                          "expression, whose files are known only when the build is generated, "
                          "after the weaving is planned; name its files plainly (add_executable, "
                          "target_sources), or say which sources to weave with SOURCES")
    endif()
    get_filename_component(extension ${source} LAST_EXT)
    if(NOT source IN_LIST to_weave OR source MATCHES "\\$<"
       OR NOT extension MATCHES "^\\.(cpp|cc|cxx|c\\+\\+|C)$")
      list(APPEND woven_sources ${source})
      continue()
    endif()
    get_filename_component(absolute ${source} ABSOLUTE BASE_DIR ${target_source_dir})
    file(RELATIVE_PATH relative ${source_root} ${absolute})
    if(relative MATCHES "^\\.\\./")
      # A generated source, or one from elsewhere: woven under its own name.
      get_filename_component(name ${absolute} NAME)
      string(MD5 directory_hash ${absolute})
      set(relative "_outside_source_root/${directory_hash}/${name}")
    endif()
    set(woven ${woven_root}/${relative})
    # The woven copy is compiled, and parsed by the weaver, with the source's own flags too.
    set(flags "${target_flags}")
    foreach(property IN ITEMS COMPILE_DEFINITIONS COMPILE_OPTIONS INCLUDE_DIRECTORIES COMPILE_FLAGS)
      get_source_file_property(value ${absolute} DIRECTORY ${target_source_dir} ${property})
      if(NOT value STREQUAL "NOTFOUND")
        set_source_files_properties(${woven} DIRECTORY ${target_source_dir}
                                    PROPERTIES ${property} "${value}")
        string(APPEND flags "source ${property} ${value}\n")
      endif()
    endforeach()
    # Compiled on its own in a unity build: the weaver reads the copy's own compile command,
    # which a unity source would fold into its own.
    set_source_files_properties(${woven} DIRECTORY ${target_source_dir}
                                PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    file(GENERATE OUTPUT ${woven}.flags CONTENT "${flags}")
    add_custom_command(
      OUTPUT ${woven} ${woven}.locks.json
      COMMAND distlock::weave ${absolute} -o ${woven} --depfile ${woven}.d
              --locks-out ${woven}.locks.json
              --source-root ${source_root} --woven-root ${woven_root}
              -p ${CMAKE_BINARY_DIR} --flags-of ${woven}
      DEPENDS ${absolute} distlock::weave ${woven}.flags
      DEPFILE ${woven}.d
      COMMENT "Weaving ${relative}"
      VERBATIM)
    list(APPEND woven_sources ${woven})
    list(APPEND inventories ${woven}.locks.json)
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES ${woven_sources})

  # The weaving runs in this target, which <target> builds after: one target runs each
  # weave command, also with Makefiles.
  set(manifest ${CMAKE_BINARY_DIR}/${target}.distlock-locks.json)
  set(check_option)
  if(NOT order_check)
    set(check_option --no-order-check)
  endif()
  add_custom_command(
    OUTPUT ${manifest}
    COMMAND distlock::lock-order -o ${manifest} --target ${target} ${check_option} ${inventories}
    DEPENDS ${inventories} distlock::lock-order
    COMMENT "Checking the lock order of ${target}"
    VERBATIM)
  add_custom_target(${target}_distlock_locks DEPENDS ${manifest})
  add_dependencies(${target} ${target}_distlock_locks)
endfunction()
