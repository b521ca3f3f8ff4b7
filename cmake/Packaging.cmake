# SPDX-License-Identifier: Apache-2.0
# Debian packages of an install, one per component (cpack -G DEB in a build directory):
#
#   libdistlock-dev  (dev)      headers, the static runtime, CMake and pkg-config files
#   distlock         (runtime)  the distlock operator command
#   distlock-weave   (tool)     distlock-weave, distlock-lock-order and distlock_weave()
#
# Dependencies: what the packaged executables link, found by dpkg-shlibdeps, and what a consumer
# of the static runtime links besides (hiredis, the ZooKeeper C client).
set(CPACK_PACKAGE_NAME distlock)
set(CPACK_PACKAGE_VENDOR "distlock")
set(CPACK_PACKAGE_CONTACT "distlock developers <distlock@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Distributed locks for C++ by annotation")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)

set(CPACK_COMPONENTS_ALL dev)
if(DISTLOCK_BUILD_COMMAND)
  list(APPEND CPACK_COMPONENTS_ALL runtime)
endif()
if(DISTLOCK_BUILD_TOOL)
  list(APPEND CPACK_COMPONENTS_ALL tool)
endif()

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libdistlock-dev)
set(CPACK_COMPONENT_DEV_DESCRIPTION
  "distlock: headers, static runtime library, CMake package and pkg-config file")
set(distlock_dev_depends "libhiredis-dev")
if(DISTLOCK_WITH_TLS)
  string(APPEND distlock_dev_depends ", libssl-dev")
endif()
if(DISTLOCK_WITH_ZOOKEEPER)
  string(APPEND distlock_dev_depends ", libzookeeper-mt-dev")
endif()
if(DISTLOCK_WITH_POSTGRESQL)
  string(APPEND distlock_dev_depends ", libpq-dev")
endif()
if(DISTLOCK_WITH_ETCD)
  string(APPEND distlock_dev_depends ", libgrpc++-dev, libprotobuf-dev")
endif()
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${distlock_dev_depends}")

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME distlock)
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
  "distlock: the distlock command, to list, show, watch and force-release locks")

set(CPACK_DEBIAN_TOOL_PACKAGE_NAME distlock-weave)
set(CPACK_COMPONENT_TOOL_DESCRIPTION
  "distlock: distlock-weave, the Clang tool that weaves lock guards, and distlock_weave()")
# Woven code includes the runtime's headers and links it.
set(CPACK_DEBIAN_TOOL_PACKAGE_DEPENDS "libdistlock-dev (= ${PROJECT_VERSION})")

include(CPack)
