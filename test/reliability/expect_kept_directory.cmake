# SPDX-License-Identifier: Apache-2.0
# A checker run whose checks fail keeps its run directory, with the workers' logs, and says
# where; this one fails by asking for more operations than a short run makes. The directory
# is removed afterwards.
#
#   cmake -DCHECKER=<distlock_checker> -P expect_kept_directory.cmake
if(NOT DEFINED CHECKER)
  message(FATAL_ERROR "expect_kept_directory.cmake: -DCHECKER= is required")
endif()
execute_process(COMMAND ${CHECKER} --backend memory --threads --fault none --workers 2
    --duration 1s --ttl 1s --min-operations 1000000
  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
message("${output}")
if(NOT result EQUAL 1)
  message(FATAL_ERROR "the checker exited with ${result}, not 1 (a failed check); stderr:\n${errors}")
endif()
if(NOT output MATCHES "run directory kept: ([^\n]+)")
  message(FATAL_ERROR "the failed run did not say that it kept its directory")
endif()
set(directory "${CMAKE_MATCH_1}")
set(missing)
foreach(log worker-0.log worker-1.log)
  if(NOT EXISTS "${directory}/logs/${log}")
    list(APPEND missing ${log})
  endif()
endforeach()
file(REMOVE_RECURSE "${directory}")
if(missing)
  message(FATAL_ERROR "the kept directory ${directory} lacks ${missing}")
endif()
message(STATUS "the failed run kept its directory, with the workers' logs")
