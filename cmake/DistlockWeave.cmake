# distlock_weave(<target> [SOURCES <source>...] [SOURCE_ROOT <dir>])
#
# Weaves the lock guards of [[distlock::lock(...)]] functions into <target>: each C++ source
# (or each of SOURCES) is replaced in the target by its woven copy, made by distlock-weave
# with the target's include directories, compile definitions and C++ standard. Headers under
# SOURCE_ROOT (default: the calling project's source directory) that a source reads are
# copied, woven, beside it, and the woven sources include those copies, so functions defined
# in headers are locked too. A source is woven again when it or a header it reads changes.
include_guard(GLOBAL)

function(distlock_weave target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SOURCE_ROOT" "SOURCES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "distlock_weave(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}; "
                        "write distlock_weave(<target> [SOURCES <source>...] [SOURCE_ROOT <dir>])")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "distlock_weave(${target}): no such target; call it after add_executable or add_library")
  endif()
  if(NOT TARGET distlock::weave)
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

  set(includes "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(definitions "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(standard "$<TARGET_PROPERTY:${target},CXX_STANDARD>")
  # $<SEMICOLON> survives this list; COMMAND_EXPAND_LISTS splits it into arguments.
  set(compile_flags
    "$<$<BOOL:${includes}>:-I$<JOIN:${includes},$<SEMICOLON>-I>>"
    "$<$<BOOL:${definitions}>:-D$<JOIN:${definitions},$<SEMICOLON>-D>>"
    # The runtime's headers need C++20; a target that sets no standard gets that.
    "-std=c++$<IF:$<BOOL:${standard}>,${standard},20>")

  get_target_property(all_sources ${target} SOURCES)
  set(to_weave ${all_sources})
  if(ARG_SOURCES)
    set(to_weave ${ARG_SOURCES})
  endif()

  set(woven_sources)
  foreach(source IN LISTS all_sources)
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
    add_custom_command(
      OUTPUT ${woven}
      COMMAND distlock::weave ${absolute} -o ${woven} --depfile ${woven}.d
              --source-root ${source_root} --woven-root ${woven_root}
              -- ${compile_flags}
      DEPENDS ${absolute} distlock::weave
      DEPFILE ${woven}.d
      COMMENT "Weaving ${relative}"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    list(APPEND woven_sources ${woven})
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES ${woven_sources})
endfunction()
