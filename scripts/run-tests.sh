#!/usr/bin/env bash
# Builds distlock (RelWithDebInfo, build/) and runs every test: unit, integration (real
# servers), the tool's lit suite, package, example and fuzz tests; then the runtime's unit
# and integration tests again under AddressSanitizer+UndefinedBehaviorSanitizer
# (build-asan/) and under ThreadSanitizer (build-tsan/). Installs missing Debian packages first (as root or through sudo).
#
#   bash scripts/run-tests.sh [ctest arguments...]     e.g. -L unit, -R key, -j 1
#   (with ctest arguments, only the main build's tests run, filtered by them)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ensure_packages "${DISTLOCK_PACKAGES[@]}"
configure_build RelWithDebInfo \
  -DDISTLOCK_BUILD_TESTS=ON -DDISTLOCK_BUILD_EXAMPLES=ON -DDISTLOCK_BUILD_BENCH=ON
build

log "running the tests"
ctest --test-dir "${DISTLOCK_BUILD_DIR}" --output-on-failure --no-tests=error \
  --parallel "${DISTLOCK_TEST_JOBS:-$(jobs_count)}" "$@"
if [[ $# -eq 0 ]]; then
  sanitized_tests asan address,undefined 'unit|integration'
  sanitized_tests tsan thread 'unit|integration'
fi
log "all tests passed"
