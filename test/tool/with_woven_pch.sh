#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs a compile command with woven.h precompiled, when a source among its arguments begins as
# woven code does (#include <distlock/woven.h>); other compiles run as given.
#
#   sh with_woven_pch.sh <option> <precompiled header> <compiler> <arguments...>
#
# test/tool/CMakeLists.txt builds the precompiled header for the compiler and standard of the
# command (lit.cfg.py pairs them); a compiler refuses one made for other flags.
pch_option="$1"
pch_path="$2"
shift 2

for argument in "$@"; do
  case "$argument" in
    *.cpp)
      if [ -f "$argument" ] && [ "$(head -n 1 "$argument")" = "#include <distlock/woven.h>" ]; then
        exec "$@" "$pch_option" "$pch_path"
      fi
      ;;
  esac
done
exec "$@"
