#!/usr/bin/env bash
# Builds distlock in Release (build-release/) and runs the benchmarks: redis_cycle_bench (acquire +
# release cycles against a private redis-server, compared with redis-benchmark's EVALSHA
# rate), redis_peer_bench (the same beside redis-py, node-redlock and redis-semaphore, which
# bench/peers/install.sh installs into the build tree when missing; 8 threads; the handoff
# latency; every figure also in build-release/bench/results.json), key_bench (lock-name
# building), woven_call_bench (a woven call against a hand-written Lease, on memory:// and on
# Redis), weave_time.sh (distlock-weave against clang++ -fsyntax-only) and zookeeper_bench
# (uncontended cycles and contended handoffs with 8 waiters against a private ZooKeeper,
# beside Apache Curator's InterProcessMutex).
#
#   bash scripts/run-bench.sh [--quick] [--require-goal]    (passed to redis_cycle_bench and
#                                                            redis_peer_bench; --quick also to
#                                                            zookeeper_bench)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ensure_packages "${DISTLOCK_PACKAGES[@]}"
configure release
build release redis_cycle_bench redis_peer_bench redis_topology_bench key_bench woven_call_bench distlock-weave zookeeper_bench
bench="$(preset_dir release)/bench"
bash "${DISTLOCK_ROOT}/bench/peers/install.sh" "$(preset_dir release)"

log "redis_cycle_bench $*"
"${bench}/redis_cycle_bench" "$@"
log "redis_peer_bench $*"
peer_status=0
"${bench}/redis_peer_bench" "$@" --json "${bench}/results.json" || peer_status=$?
log "redis_peer_bench's figures, ratios and goals: ${bench}/results.json"
[[ ${peer_status} -eq 0 ]] || exit "${peer_status}"
quick_args=()
for arg in "$@"; do
  if [[ "$arg" == --quick ]]; then quick_args+=(--quick); fi
done
log "redis_topology_bench ${quick_args[*]}"
"${bench}/redis_topology_bench" "${quick_args[@]}"
log "key_bench"
"${bench}/key_bench"
log "woven_call_bench (memory://)"
"${bench}/woven_call_bench"
log "woven_call_bench (Redis)"
"${bench}/woven_call_bench" --redis
log "weave_time.sh: examples/shop/inventory.cpp"
bash "${DISTLOCK_ROOT}/bench/weave_time.sh" "$(preset_dir release)/tool/distlock-weave" \
  "clang++-${DISTLOCK_LLVM_VERSION}" "${DISTLOCK_ROOT}/examples/shop/inventory.cpp" 11 \
  -- -std=c++20 -I"${DISTLOCK_ROOT}/include"
log "zookeeper_bench ${quick_args[*]}"
"${bench}/zookeeper_bench" "${quick_args[@]}"
