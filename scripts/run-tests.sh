#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds distlock (preset test: RelWithDebInfo at -O1, build/) and runs every test: unit,
# integration (real servers), the tool's lit and unit tests, package, example and fuzz
# tests, and clang-tidy; then the runtime's unit and integration tests again under
# AddressSanitizer+UndefinedBehaviorSanitizer (preset asan, build-asan/) and under
# ThreadSanitizer (preset tsan, build-tsan/, with some configurations of the reliability
# checker and a wider timing slack: test/reliability/CMakeLists.txt); what each sanitizer
# build compiles and runs is CONTRIBUTING.md's "Which build runs what". Installs missing
# Debian packages first (as root or through sudo).
#
# The main tests mostly wait (on the servers they start, on timers, on faults), so clang-tidy
# and the two sanitizer builds, each followed by its tests, run beside them, clang-tidy and the
# builds at lower CPU priorities (nice 10, 15 and 19); each background job logs to
# build/background/<name>.log, printed if it fails. clang-tidy checks the
# files changed on this branch (test/lint/clang_tidy.sh.in: --changed); the full lint is
# `cmake --build --preset test --target tidy`, or DISTLOCK_TIDY=full here.
#
#   bash scripts/run-tests.sh [--timings] [ctest arguments...]   e.g. -L unit, -R key, -j 1
#   (with ctest arguments, only the main build's tests run, filtered by them; with --timings,
#   each phase's and the whole run's wall and CPU time, each preset's tests' and the 20
#   slowest tests by wall and by CPU are printed at the end)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

print_timings=false
if [[ "${1:-}" == --timings ]]; then
  print_timings=true
  shift
fi
timing_dir="$(preset_dir test)/timings"
rm -rf "$timing_dir"
mkdir -p "$timing_dir"

# timed <phase> <command...>: runs the command, and writes its wall time and the CPU time of
# it and of the processes it waited for (user, system; seconds) to timings/<phase>. In a
# subshell: `time` counts what its shell reaps meanwhile, which in this shell would take in
# the background jobs that end during the phase.
timed() {
  local phase="$1"
  shift
  (
    TIMEFORMAT='%R %U %S'
    { time "$@" 2>&3 3>&-; } 3>&2 2>"${timing_dir}/${phase}"
  )
}

# run_recorded_tests <preset> [ctest arguments...]: runs the tests, and writes each test's time
# and whole output (JUnit XML; ctest keeps only the first KB of a passing test's output by
# default, and a suite's GoogleTest summary comes last), and each test's CPU time
# (scripts/test-cpu-time.sh, the tests' launcher).
run_recorded_tests() {
  local preset="$1"
  shift
  DISTLOCK_TEST_CPU_FILE="${timing_dir}/${preset}.cpu" run_tests "$preset" \
    --output-junit "${timing_dir}/${preset}.xml" \
    --test-output-size-passed 4194304 --test-output-size-failed 4194304 "$@"
}

# run_timed_tests <preset> [ctest arguments...]: as run_recorded_tests, timed.
run_timed_tests() {
  timed "${1}-tests" run_recorded_tests "$@"
}

# report_timings [preset...]: with --timings, the phases' times, the GoogleTest cases run and
# the slowest tests (scripts/report-timings.py), and the test cases each given preset has
# (scripts/count-test-cases.py, which lists them without running them).
report_timings() {
  "$print_timings" || return 0
  # The whole run: this shell's CPU and that of every process it waited for (`times`, into a
  # file: in a pipeline it would report the pipeline's subshell).
  times >"${timing_dir}/times"
  awk -v wall="$SECONDS" '
    { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); cpu += t[1] * 60 + t[2] } }
    END { printf "%d %.1f 0\n", wall, cpu }' "${timing_dir}/times" >"${timing_dir}/total"
  python3 "${DISTLOCK_ROOT}/scripts/report-timings.py" "$timing_dir"
  local preset
  for preset in "$@"; do
    python3 "${DISTLOCK_ROOT}/scripts/count-test-cases.py" "$preset" "$DISTLOCK_ROOT"
  done
}

ensure_packages "${DISTLOCK_PACKAGES[@]}"
timed test-build eval 'configure test && build test'
if [[ $# -gt 0 ]]; then
  run_timed_tests test "$@"
  log "the selected tests passed"
  report_timings
  exit 0
fi

background_dir="$(preset_dir test)/background"
rm -rf "$background_dir"
mkdir -p "$background_dir"
declare -A background_pids=()

# start_in_background <name> <niceness> <command...>: in a process group of its own, so that
# stop_background can end it with everything it started.
start_in_background() {
  local name="$1" niceness="$2"
  shift 2
  set -m
  (renice -n "$niceness" -p "$BASHPID" >/dev/null && "$@") \
    >"${background_dir}/${name}.log" 2>&1 &
  background_pids[$name]=$!
  set +m
  log "started ${name} in the background at nice ${niceness}"
}

finish_background() {
  local name="$1" status=0
  log "waiting for ${name}"
  wait "${background_pids[$name]}" || status=$?
  unset "background_pids[$name]"
  if [[ $status -ne 0 ]]; then
    cat "${background_dir}/${name}.log" >&2
    die "${name} failed (exit ${status}); its log is above and in ${background_dir}/${name}.log"
  fi
  log "${name} done"
}

stop_background() {
  local pid
  for pid in "${background_pids[@]}"; do
    kill -TERM -- "-${pid}" 2>/dev/null || true
  done
}
trap stop_background EXIT

# build_and_test <preset> <build niceness> <test jobs>: a sanitizer build at a lower CPU
# priority, then its tests as soon as it is built (beside the main tests when they are still
# running) at the main tests' priority: a build only takes longer when it yields, while a test
# that waits on its servers and timers starved of the CPU fails on their deadlines.
build_and_test() {
  local preset="$1" build_niceness="$2" test_jobs="$3"
  timed "${preset}-build" eval "(renice -n ${build_niceness} -p \"\$BASHPID\" >/dev/null &&
    configure ${preset} && build ${preset})" || return
  DISTLOCK_TEST_JOBS="${DISTLOCK_TEST_JOBS:-$test_jobs}" run_timed_tests "$preset"
}

# clang-tidy first, then the asan build, then the tsan build, all beside the main tests.
tidy_arguments=(--changed)
if [[ "${DISTLOCK_TIDY:-changed}" == full ]]; then
  tidy_arguments=()
fi
start_in_background clang-tidy 10 timed clang-tidy timeout 45m \
  sh "$(preset_dir test)/test/lint/clang_tidy.sh" "${tidy_arguments[@]}"
# The sanitizer builds' tests mostly wait too (each build's keep less than a core busy), so
# each runs two more at a time than cores.
start_in_background asan 0 build_and_test asan 15 "$(($(jobs_count) + 2))"
start_in_background tsan 0 build_and_test tsan 19 "$(($(jobs_count) + 2))"
# One test more than cores: most tests wait on servers and timers, and those that compile
# (package, docs, lit, fuzz.build) each take two of the slots (their PROCESSORS).
DISTLOCK_TEST_JOBS="${DISTLOCK_TEST_JOBS:-$(($(jobs_count) + 1))}" \
  run_timed_tests test -E '^lint\.clang_tidy$'
finish_background clang-tidy
finish_background asan
finish_background tsan
grep -h "tests passed" "${background_dir}/asan.log" "${background_dir}/tsan.log"
log "all tests passed"
report_timings test asan tsan
