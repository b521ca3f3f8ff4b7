#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds distlock in Release (build-release/) and runs the benchmarks: redis_cycle_bench (acquire +
# release cycles against a private redis-server, compared with redis-benchmark's EVALSHA
# rate), redis_tls_bench (the same cycles over TLS against those in the clear, on one server;
# the handshake's time), redis_peer_bench (the same beside redis-py, node-redlock and redis-semaphore, which
# bench/peers/install.sh installs into the build tree when missing; 8 threads; the handoff
# latency), renewal_capacity_bench (the client's CPU keeping 1k/10k/100k leases renewed), key_bench (lock-name
# building), woven_call_bench (a woven call against a hand-written Lease, on memory:// and on
# Redis), weave_time.sh (distlock-weave against clang++ -fsyntax-only) and zookeeper_bench
# (uncontended cycles and contended handoffs with 8 waiters against a private ZooKeeper,
# beside Apache Curator's InterProcessMutex), async_bench (acquiring without blocking a
# thread, distlock/asio.h, against the blocking API), etcd_bench and postgres_bench (each
# store's cycle against its own floor, and the handoff in its round trips).
#
# The benchmarks with goals write their figures as JSON too; all of them end up in one file,
# build-release/bench/results.json, keyed by benchmark, with the commit, the date and the host.
# The table docs/performance.md opens with is printed from it at the end (bench/results_table.py,
# also in build-release/bench/results.md), and a full run (not --quick) keeps the file as
# bench/results/<date>.json. --quick takes about a minute and a half on 2 cores.
#
# --plots then runs the reliability checker once (Redis, kill-holder; the checker is built in
# build/) and draws the figures of docs/performance.md and docs/reliability.md from both
# (bench/plots/plots.py, gnuplot), into docs/img/.
#
#   bash scripts/run-bench.sh [--quick] [--require-goal] [--plots]
#        (--quick and --require-goal are passed to redis_cycle_bench, redis_tls_bench,
#         redis_peer_bench, renewal_capacity_bench and zookeeper_bench; --quick also to
#         redis_topology_bench, async_bench, etcd_bench and postgres_bench)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

plots=false
bench_args=()
for arg in "$@"; do
  if [[ "$arg" == --plots ]]; then plots=true; else bench_args+=("$arg"); fi
done
set -- "${bench_args[@]}"

ensure_packages "${DISTLOCK_PACKAGES[@]}"
if $plots; then ensure_packages gnuplot-nox; fi
configure release
build release redis_cycle_bench redis_tls_bench redis_peer_bench lock_kinds_bench renewal_capacity_bench redis_topology_bench key_bench woven_call_bench distlock-weave zookeeper_bench async_bench etcd_bench postgres_bench
bench="$(preset_dir release)/bench"
bash "${DISTLOCK_ROOT}/bench/peers/install.sh" "$(preset_dir release)"
results="${bench}/results"
rm -rf "${results}"
mkdir -p "${results}"
# A benchmark below its goal (--require-goal) fails the run at the end, after every figure.
goal_status=0

log "redis_cycle_bench $*"
"${bench}/redis_cycle_bench" "$@" || goal_status=$?
log "redis_tls_bench $*"
"${bench}/redis_tls_bench" "$@" || goal_status=$?
log "redis_peer_bench $*"
"${bench}/redis_peer_bench" "$@" --json "${results}/redis_peers.json" || goal_status=$?
log "lock_kinds_bench $*"
"${bench}/lock_kinds_bench" "$@" --json "${results}/lock_kinds.json" || goal_status=$?
log "renewal_capacity_bench $*"
"${bench}/renewal_capacity_bench" "$@" --json "${results}/renewal_capacity.json" ||
  goal_status=$?
quick_args=()
for arg in "$@"; do
  if [[ "$arg" == --quick ]]; then quick_args+=(--quick); fi
done
log "redis_topology_bench ${quick_args[*]}"
"${bench}/redis_topology_bench" "${quick_args[@]}" --json "${results}/redis_topology.json"
log "key_bench"
"${bench}/key_bench"
log "woven_call_bench (memory://)"
"${bench}/woven_call_bench" --benchmark_out="${results}/woven_call.json" \
  --benchmark_out_format=json
log "woven_call_bench (Redis)"
"${bench}/woven_call_bench" --redis
log "weave_time.sh: examples/shop/inventory.cpp"
bash "${DISTLOCK_ROOT}/bench/weave_time.sh" "$(preset_dir release)/tool/distlock-weave" \
  "clang++-${DISTLOCK_LLVM_VERSION}" "${DISTLOCK_ROOT}/examples/shop/inventory.cpp" 11 \
  -- -std=c++20 -I"${DISTLOCK_ROOT}/include"
log "zookeeper_bench $*"
"${bench}/zookeeper_bench" "$@" --json "${results}/zookeeper.json" || goal_status=$?
log "async_bench ${quick_args[*]}"
"${bench}/async_bench" "${quick_args[@]}"
log "etcd_bench ${quick_args[*]}"
"${bench}/etcd_bench" "${quick_args[@]}"
log "postgres_bench ${quick_args[*]}"
"${bench}/postgres_bench" "${quick_args[@]}"

quick=false
if ((${#quick_args[@]} > 0)); then quick=true; fi
commit="$(git -C "${DISTLOCK_ROOT}" rev-parse --short HEAD 2>/dev/null || echo unknown)"
# Edits to the docs while it runs change no figure.
if [[ -n "$(git -C "${DISTLOCK_ROOT}" status --porcelain --untracked-files=no -- . ':!docs' \
  2>/dev/null)" ]]; then
  commit="${commit} with local changes"
fi
python3 - "${results}" "${bench}/results.json" "${commit}" "${quick}" <<'PYTHON'
import datetime, json, os, pathlib, platform, sys
parts = sorted(pathlib.Path(sys.argv[1]).glob("*.json"))
merged = {part.stem: json.loads(part.read_text()) for part in parts}
cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
            if line.startswith("model name")), platform.processor())
merged["host"] = {
    "commit": sys.argv[3],
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    "cpu": cpu,
    "cores": os.cpu_count(),
    "kernel": platform.release(),
    "quick": sys.argv[4] == "true",
}
pathlib.Path(sys.argv[2]).write_text(json.dumps(merged, indent=2) + "\n")
PYTHON
log "every benchmark's figures, ratios and goals: ${bench}/results.json"
python3 "${DISTLOCK_ROOT}/bench/results_table.py" "${bench}/results.json" | tee "${bench}/results.md"
# A full run's figures are kept beside the code, for docs/performance.md's table.
if ! $quick; then
  kept="${DISTLOCK_ROOT}/bench/results/$(date -u +%Y-%m-%d).json"
  mkdir -p "$(dirname "${kept}")"
  cp "${bench}/results.json" "${kept}"
  log "kept for docs/performance.md: ${kept} (the table: ${bench}/results.md)"
fi

if $plots; then
  configure test
  build test distlock_checker
  log "distlock_checker: redis, kill-holder, for the fault timeline"
  "$(preset_dir test)/test/reliability/distlock_checker" --backend redis --fault kill-holder \
    --workers 3 --duration 6s --ttl 1s --timeline "${results}/timeline.tsv"
  log "plots"
  python3 "${DISTLOCK_ROOT}/bench/plots/plots.py" "${bench}/results.json" \
    "${results}/timeline.tsv" "${DISTLOCK_ROOT}/docs/img"
fi
exit "${goal_status}"
