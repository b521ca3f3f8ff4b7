#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs a compile command once for each C++ standard distlock's users may compile woven code
# with: "$@" -std=c++17, then "$@" -std=c++20. Fails at the first that fails.
#
#   sh each_standard.sh [--pch <option> <path with @STD@>] <compiler> <arguments...>
#
# With --pch, a source among the arguments that begins as woven code does
# (#include <distlock/woven.h>) is compiled with that standard's precompiled woven.h
# (test/tool/CMakeLists.txt builds one per compiler and standard): <option> <path>, @STD@
# replaced by the standard. Each precompiled header was compiled from woven.h at its standard,
# so the header is still compiled at both; a compiler refuses one made for other flags.
pch_option=
pch_template=
if [ "$1" = --pch ]; then
  pch_option="$2"
  pch_template="$3"
  shift 3
fi

woven_source=false
if [ -n "$pch_option" ]; then
  for argument in "$@"; do
    case "$argument" in
      *.cpp)
        if [ -f "$argument" ] && [ "$(head -n 1 "$argument")" = "#include <distlock/woven.h>" ]; then
          woven_source=true
        fi
        ;;
    esac
  done
fi

for standard in c++17 c++20; do
  if "$woven_source"; then
    pch_path=$(printf '%s' "$pch_template" | sed "s/@STD@/${standard}/g")
    "$@" "$pch_option" "$pch_path" "-std=${standard}" || exit 1
  else
    "$@" "-std=${standard}" || exit 1
  fi
done
