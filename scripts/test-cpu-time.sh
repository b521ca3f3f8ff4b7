#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The launcher of every ctest test (DISTLOCK_TEST_LAUNCHER): runs the test's command as it is;
# when DISTLOCK_TEST_CPU_FILE is set (scripts/run-tests.sh --timings), it also appends
# "<test name>\t<wall> <user> <system>" (seconds; CPU of the command and of every process it
# waited for, the servers a test starts among them) to that file.
#
#   test-cpu-time.sh <test name> <command> [arguments...]
name="$1"
shift
if [[ -z "${DISTLOCK_TEST_CPU_FILE:-}" ]]; then
  exec "$@"
fi
times_file="$(mktemp)"
TIMEFORMAT='%R %U %S'
{ time "$@" 2>&3 3>&-; } 3>&2 2>"$times_file"
status=$?
# One write of one short line: the tests that run at once append to the same file.
printf '%s\t%s\n' "$name" "$(tail -n 1 "$times_file")" >>"$DISTLOCK_TEST_CPU_FILE"
rm -f "$times_file"
exit "$status"
