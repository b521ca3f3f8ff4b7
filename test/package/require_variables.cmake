# SPDX-License-Identifier: Apache-2.0
# require_variables(<var>...): for the cmake -P scripts of the package tests, fails naming
# the script and the first -D<var>=... that was not given (or given empty).
function(require_variables)
  get_filename_component(script ${CMAKE_SCRIPT_MODE_FILE} NAME)
  foreach(var IN LISTS ARGN)
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
      message(FATAL_ERROR "${script}: -D${var}=... is required")
    endif()
  endforeach()
endfunction()
