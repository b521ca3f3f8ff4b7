# SPDX-License-Identifier: Apache-2.0
# A negative control of the reliability checker: runs it with one protection broken and
# passes only if it exits 1 (a check failed) and reports the failure of the check that
# protection is for. Of the other checks, only those ALSO names may fail beside it (what the
# broken protection brings about): a checker that failed every check would not pass.
#
#   cmake -DCHECKER=<distlock_checker> "-DARGS=<arg>|<arg>|..." "-DEXPECT=<check name>"
#         ["-DALSO=<check name>|<check name>|..."] -P expect_failure.cmake
foreach(var CHECKER ARGS EXPECT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "expect_failure.cmake: -D${var}= is required")
  endif()
endforeach()
string(REPLACE "|" ";" arguments "${ARGS}")
execute_process(COMMAND ${CHECKER} ${arguments}
  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
message("${output}")
string(FIND "${output}" "[FAILED] ${EXPECT}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the checker did not report '[FAILED] ${EXPECT}'; stderr:\n${errors}")
endif()
string(REPLACE "|" ";" also "${ALSO}")
string(REGEX MATCHALL "\\[FAILED\\] [^\n]*" failed_lines "${output}")
foreach(line IN LISTS failed_lines)
  set(accounted FALSE)
  foreach(allowed IN ITEMS "${EXPECT}" ${also})
    string(FIND "${line}" "[FAILED] ${allowed}" at)
    if(at EQUAL 0)
      set(accounted TRUE)
    endif()
  endforeach()
  if(NOT accounted)
    message(FATAL_ERROR "a check the broken protection does not explain failed too: ${line}")
  endif()
endforeach()
if(NOT result EQUAL 1)
  message(FATAL_ERROR "the checker exited with ${result}, not 1 (a failed check); stderr:\n${errors}")
endif()
# A run meant to fail leaves nothing behind, unlike a run that fails by surprise.
if(output MATCHES "run directory kept")
  message(FATAL_ERROR "the negative control kept its run directory")
endif()
message(STATUS "negative control: '${EXPECT}' failed, as it must")
