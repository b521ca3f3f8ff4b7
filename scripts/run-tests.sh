#!/usr/bin/env bash
# Builds distlock (preset test: RelWithDebInfo, build/) and runs every test: unit,
# integration (real servers), the tool's lit and unit tests, package, example and fuzz
# tests; then the runtime's unit and integration tests again under
# AddressSanitizer+UndefinedBehaviorSanitizer (preset asan, build-asan/) and under
# ThreadSanitizer (preset tsan, build-tsan/); the shared lock-behaviour suite runs there on
# the single-server backends only, its Sentinel/Cluster/Redlock variants in the main build
# (each topology's own tests run under both sanitizers). Installs missing Debian packages first (as root
# or through sudo).
#
#   bash scripts/run-tests.sh [ctest arguments...]     e.g. -L unit, -R key, -j 1
#   (with ctest arguments, only the main build's tests run, filtered by them)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ensure_packages "${DISTLOCK_PACKAGES[@]}"
configure test
build test
run_tests test "$@"
if [[ $# -eq 0 ]]; then
  for preset in asan tsan; do
    configure "$preset"
    build "$preset"
    run_tests "$preset"
  done
fi
log "all tests passed"
