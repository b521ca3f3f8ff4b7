# SPDX-License-Identifier: Apache-2.0
# Java drivers that run Apache Curator (Debian's libcurator-recipes-java) beside distlock: the
# interop tests' CuratorContender and the benchmark's CuratorBench. Build-time only; not part
# of the installed package.
#
#   distlock_curator_jar(<target> <source.java>)
#     compiles the source into <target>.jar (javac, found by find_package(Java)) and sets
#     <target>_CLASSPATH in the caller's scope: the jar plus the Curator, ZooKeeper, Guava and
#     slf4j jars it runs with, joined by ':' for `java -cp`.
#
# A missing javac or jar stops the configuration with what to install. DISTLOCK_JAVA_LIBS (a
# cache variable, default /usr/share/java) names the directory of the jars.
# Included by each directory that uses it: the jar lists are directory-scoped variables.

set(DISTLOCK_JAVA_LIBS "/usr/share/java" CACHE PATH
  "Directory of the Curator, ZooKeeper, Guava and slf4j jars (Debian: /usr/share/java)")

find_package(Java 11 COMPONENTS Runtime Development)
if(NOT Java_JAVAC_EXECUTABLE OR NOT Java_JAVA_EXECUTABLE)
  message(FATAL_ERROR
    "The ZooKeeper interop tests and benchmark compile Java drivers for Apache Curator and "
    "need a JDK (javac and java) of version 11 or later: none was found (Debian: apt-get "
    "install default-jdk-headless; or set JAVA_HOME)")
endif()
include(UseJava)

set(_distlock_curator_compile_jars
  curator-recipes curator-framework curator-client zookeeper zookeeper-jute)
set(_distlock_curator_runtime_jars
  ${_distlock_curator_compile_jars} guava slf4j-api slf4j-nop)
set(DISTLOCK_CURATOR_COMPILE_JARS "")
set(DISTLOCK_CURATOR_RUNTIME_JARS "")
set(_distlock_missing_jars "")
foreach(jar IN LISTS _distlock_curator_runtime_jars)
  set(path "${DISTLOCK_JAVA_LIBS}/${jar}.jar")
  if(NOT EXISTS "${path}")
    list(APPEND _distlock_missing_jars "${path}")
  endif()
  list(APPEND DISTLOCK_CURATOR_RUNTIME_JARS "${path}")
  if(jar IN_LIST _distlock_curator_compile_jars)
    list(APPEND DISTLOCK_CURATOR_COMPILE_JARS "${path}")
  endif()
endforeach()
if(_distlock_missing_jars)
  list(JOIN _distlock_missing_jars ", " _distlock_missing_text)
  message(FATAL_ERROR
    "The ZooKeeper interop tests and benchmark need Apache Curator and ZooKeeper jars; "
    "missing: ${_distlock_missing_text} (Debian: apt-get install libcurator-recipes-java "
    "zookeeper libslf4j-java; or set DISTLOCK_JAVA_LIBS)")
endif()

function(distlock_curator_jar target source)
  add_jar(${target}
    SOURCES ${source}
    INCLUDE_JARS ${DISTLOCK_CURATOR_COMPILE_JARS}
    OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR})
  get_target_property(jar_file ${target} JAR_FILE)
  set(classpath "${jar_file}" ${DISTLOCK_CURATOR_RUNTIME_JARS})
  list(JOIN classpath ":" classpath_text)
  set(${target}_CLASSPATH "${classpath_text}" PARENT_SCOPE)
endfunction()
