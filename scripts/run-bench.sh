#!/usr/bin/env bash
# Builds distlock in Release (build/) and runs the benchmarks: redis_cycle_bench (acquire +
# release cycles against a private redis-server, compared with redis-benchmark's EVALSHA
# rate) and key_bench (Google Benchmark: lock-name building).
#
#   bash scripts/run-bench.sh [--quick] [--require-goal]    (passed to redis_cycle_bench)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ensure_packages "${DISTLOCK_PACKAGES[@]}"
configure_build Release \
  -DDISTLOCK_BUILD_TESTS=ON -DDISTLOCK_BUILD_EXAMPLES=ON -DDISTLOCK_BUILD_BENCH=ON
targets=(redis_cycle_bench)
if grep -q '^build bench/key_bench:' "${DISTLOCK_BUILD_DIR}/build.ninja"; then
  targets+=(key_bench)
else
  log "Google Benchmark not found: skipping key_bench"
fi
build "${targets[@]}"

log "redis_cycle_bench $*"
"${DISTLOCK_BUILD_DIR}/bench/redis_cycle_bench" "$@"
if [[ " ${targets[*]} " == *" key_bench "* ]]; then
  log "key_bench"
  "${DISTLOCK_BUILD_DIR}/bench/key_bench"
fi
