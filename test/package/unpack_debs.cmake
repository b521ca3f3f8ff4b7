# SPDX-License-Identifier: Apache-2.0
# unpack_debs(<cpack> <build dir> <work dir> "<package> => <Depends regex>[&<regex>...]|..."
#             <root variable>):
# makes the Debian packages of a distlock build (cpack -G DEB), checks that exactly the
# expected packages came out and that each one's Depends matches its regexes, and unpacks them
# all into <work dir>/root (dpkg-deb -x), whose path it sets in <root variable>.
find_program(DISTLOCK_DPKG_DEB dpkg-deb REQUIRED)

function(unpack_debs cpack build_dir work_dir expected_packages root_variable)
  set(debs_dir ${work_dir}/debs)
  # gzip: the test's packages need not be small, only quick to make.
  execute_process(
    COMMAND ${cpack} -G DEB --config ${build_dir}/CPackConfig.cmake -B ${debs_dir}
            -D CPACK_DEBIAN_COMPRESSION_TYPE=gzip
    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "unpack_debs: cpack failed (${result}):\n${output}")
  endif()
  file(GLOB debs ${debs_dir}/*.deb)

  set(root ${work_dir}/root)
  string(REPLACE "|" ";" expected_packages "${expected_packages}")
  set(expected_names)
  foreach(expectation IN LISTS expected_packages)
    string(REGEX MATCH "^([^ ]+) => (.*)$" matched "${expectation}")
    set(name ${CMAKE_MATCH_1})
    string(REPLACE "&" ";" depends_regexes "${CMAKE_MATCH_2}")
    list(APPEND expected_names ${name})
    set(deb "")
    foreach(candidate IN LISTS debs)
      execute_process(COMMAND ${DISTLOCK_DPKG_DEB} -f ${candidate} Package
        OUTPUT_VARIABLE package OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(package STREQUAL name)
        set(deb ${candidate})
      endif()
    endforeach()
    if(NOT deb)
      message(FATAL_ERROR "unpack_debs: no package ${name} among: ${debs}")
    endif()
    execute_process(COMMAND ${DISTLOCK_DPKG_DEB} -f ${deb} Depends
      OUTPUT_VARIABLE depends OUTPUT_STRIP_TRAILING_WHITESPACE)
    foreach(depends_regex IN LISTS depends_regexes)
      if(NOT depends MATCHES "${depends_regex}")
        message(FATAL_ERROR "unpack_debs: ${name} depends on '${depends}', expected '${depends_regex}'")
      endif()
    endforeach()
    message(STATUS "unpack_debs: ${name}: Depends: ${depends}")
    execute_process(COMMAND ${DISTLOCK_DPKG_DEB} -x ${deb} ${root} RESULT_VARIABLE result)
    if(NOT result EQUAL 0)
      message(FATAL_ERROR "unpack_debs: dpkg-deb -x ${deb} failed (${result})")
    endif()
  endforeach()
  # The packaged programs start: their shared libraries are where their Depends put them.
  file(GLOB programs ${root}/usr/bin/*)
  foreach(program IN LISTS programs)
    execute_process(COMMAND ${program} --help RESULT_VARIABLE result OUTPUT_QUIET ERROR_QUIET)
    if(NOT result EQUAL 0)
      message(FATAL_ERROR "unpack_debs: ${program} --help failed (${result})")
    endif()
  endforeach()
  list(LENGTH debs made)
  list(LENGTH expected_names wanted)
  if(NOT made EQUAL wanted)
    message(FATAL_ERROR "unpack_debs: cpack made ${debs}, expected only ${expected_names}")
  endif()
  set(${root_variable} ${root} PARENT_SCOPE)
endfunction()
