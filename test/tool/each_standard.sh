#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs a compile command once for each C++ standard distlock's users may compile woven code
# with: "$@" -std=c++17, then "$@" -std=c++20. Fails at the first that fails.
for standard in c++17 c++20; do
  "$@" "-std=${standard}" || exit 1
done
