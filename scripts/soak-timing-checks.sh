#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs the test suite's timing-sensitive checks many times each, every backend they run on,
# beside a parallel build that keeps both cores busy (a -j2 compile of distlock-weave, again
# and again), and prints how many runs of each check failed. An opt-in soak: about 40 minutes
# for the default 20 runs on a 2-core machine; the test suite runs each check once.
#
#   bash scripts/soak-timing-checks.sh [--runs N] [--no-load]
#
# --runs N    runs of each check (20)
# --no-load   no background build: the checks on an otherwise idle machine
#
# Each run is a process of its own, as ctest starts it. The output of a failed run is kept in
# build/soak/<check>.<run>.log. Exits 1 when any run failed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

runs=20
load=true
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --no-load) load=false; shift ;;
    *) die "unknown argument: $1 (use --runs N, --no-load)" ;;
  esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs takes a positive number, not '$runs'"

ensure_packages "${DISTLOCK_PACKAGES[@]}"
configure test
build test

build_dir="$(preset_dir test)"
integration="${build_dir}/test/integration"
soak_dir="${build_dir}/soak"
rm -rf "$soak_dir"
mkdir -p "$soak_dir"

# The checks: a name, then the command of one run.
checks=(
  "fair waiter that times out|${integration}/distlock_integration_tests --gtest_filter=*FairBehaviour.AFairWaiterThatTimesOut*"
  "hold_at_least, two processes|${integration}/distlock_annotation_options_test --gtest_filter=AnnotationOptions.HoldAtLeast*"
  "hold_at_least, every backend|${integration}/distlock_integration_tests --gtest_filter=*LockBehaviour.HoldAtLeast*"
  "event hook hears each step|${integration}/distlock_integration_tests --gtest_filter=*LockBehaviour.TheEventHookHearsEachStep*"
  "ZooKeeper permits kept by renewals|${integration}/distlock_zookeeper_tests --gtest_filter=ZooKeeperSemaphore.RenewalsKeepPermits"
  "ZooKeeper server restarts|${integration}/distlock_zookeeper_tests --gtest_filter=ZooKeeperRecovery.ServerRestarts*"
  "watchdog keeps a lock past its ttl|${integration}/distlock_integration_tests --gtest_filter=*LockBehaviour.WatchdogKeepsALockHeldPastItsTtl*"
  "silence fails every caller|${integration}/distlock_redis_transport_tests --gtest_filter=RedisSharedConnection.SilenceFailsEveryCallerAtTheTimeout"
  "contention: waiters woken by releases|${integration}/distlock_integration_tests --gtest_filter=*WaiterIsWokenByTheReleaseNotByATimeout*:*AWaitingWriterHoldsNewReaders*:*ThreePermitsAreGrantedAndTheFourthWaits*"
  "checker slack bounds (redis partition)|${build_dir}/test/reliability/distlock_checker --backend redis --fault partition --workers 3 --duration 6s --ttl 1s --slack 500ms"
)

load_pid=
stop_load() {
  [[ -n "$load_pid" ]] && kill -TERM -- "-${load_pid}" 2>/dev/null || true
}
trap stop_load EXIT
if "$load"; then
  load_dir="${build_dir}/soak-load"
  cmake -S "$DISTLOCK_ROOT" -B "$load_dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DDISTLOCK_BUILD_TESTS=OFF -DDISTLOCK_BUILD_EXAMPLES=OFF -DDISTLOCK_BUILD_BENCH=OFF >/dev/null
  set -m
  (while :; do
     cmake --build "$load_dir" --target distlock-weave --clean-first -j 2 >/dev/null 2>&1
   done) &
  load_pid=$!
  set +m
  log "a -j2 build of distlock-weave runs again and again beside the checks"
fi

failed_any=false
set -f  # the filters' stars are GoogleTest's, not the shell's
printf '%-42s %5s %8s\n' "check" "runs" "failed" | tee "${soak_dir}/summary.txt"
for check in "${checks[@]}"; do
  name="${check%%|*}"
  command="${check#*|}"
  failures=0
  for ((run = 1; run <= runs; ++run)); do
    log_file="${soak_dir}/${name//[^A-Za-z0-9]/_}.${run}.log"
    if ${command} >"$log_file" 2>&1; then
      rm -f "$log_file"
    else
      failures=$((failures + 1))
      failed_any=true
    fi
  done
  printf '%-42s %5d %8d\n' "$name" "$runs" "$failures" | tee -a "${soak_dir}/summary.txt"
done
if "$failed_any"; then
  die "some runs failed; their output is in ${soak_dir}"
fi
log "no run failed"
