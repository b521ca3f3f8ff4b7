# SPDX-License-Identifier: Apache-2.0
# Shared by scripts/run-*.sh: non-interactive setup, package checks, configure and build.
# Source it; it sets DISTLOCK_ROOT (the repository). The builds are CMakePresets.json's:
# test (build/), release (build-release/), asan (build-asan/), tsan (build-tsan/).

# Nothing here may wait for a person: no stdin, no prompts.
exec </dev/null
export CI=true
export DEBIAN_FRONTEND=noninteractive
export NEEDRESTART_MODE=a
export GTEST_COLOR=no

DISTLOCK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

DISTLOCK_LLVM_VERSION="$(head -n 1 "${DISTLOCK_ROOT}/llvm-version.txt" | tr -d '[:space:]')"

# What the build, the tests, the example and the benchmark need (Debian 12 package names).
DISTLOCK_PACKAGES=(
  build-essential cmake ninja-build pkg-config python3 python3-prometheus-client
  libhiredis-dev libssl-dev redis-server redis-tools
  libgtest-dev libbenchmark-dev nlohmann-json3-dev libspdlog-dev libcli11-dev
  libzookeeper-mt-dev zookeeper libcurator-recipes-java default-jdk-headless
  postgresql libpq-dev
  etcd-server etcd-client libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  faketime doxygen libasio-dev libboost-dev
  file  # cpack's DEB generator (package.deb) asks file(1) which files are programs
  "llvm-${DISTLOCK_LLVM_VERSION}-dev" "libclang-${DISTLOCK_LLVM_VERSION}-dev"
  "clang-${DISTLOCK_LLVM_VERSION}" "llvm-${DISTLOCK_LLVM_VERSION}-tools"
  "libclang-rt-${DISTLOCK_LLVM_VERSION}-dev" "lld-${DISTLOCK_LLVM_VERSION}"
  "clang-format-${DISTLOCK_LLVM_VERSION}" "clang-tidy-${DISTLOCK_LLVM_VERSION}"
)

# Each line carries the seconds since the script started, so that a slow phase shows itself.
log() { printf '==> [%4ds] %s\n' "$SECONDS" "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

jobs_count() {
  local n
  n="$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"
  [[ "$n" =~ ^[0-9]+$ && "$n" -ge 1 ]] || n=2
  echo "$n"
}

package_installed() {
  dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed$'
}

# Runs a command as root: directly, or through sudo without a password prompt.
as_root() {
  if [[ "$(id -u)" -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo -n env DEBIAN_FRONTEND=noninteractive NEEDRESTART_MODE=a "$@"
  else
    die "need root to run: $* (run as root, or allow passwordless sudo)"
  fi
}

# Installs whichever of the given Debian packages are missing; nothing when all are there.
ensure_packages() {
  if ! command -v dpkg >/dev/null 2>&1; then
    log "no dpkg here: not installing anything; make sure these are present: $*"
    return 0
  fi
  local missing=() pkg
  for pkg in "$@"; do
    package_installed "$pkg" || missing+=("$pkg")
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 || die "missing packages and no apt-get: ${missing[*]}"
  log "installing missing packages: ${missing[*]}"
  as_root apt-get update -q
  as_root apt-get install -y -q --no-install-recommends \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
    "${missing[@]}"
}

# The build directory of a preset.
preset_dir() {
  case "$1" in
    test) echo "${DISTLOCK_ROOT}/build" ;;
    *) echo "${DISTLOCK_ROOT}/build-$1" ;;
  esac
}

# configure <preset>: cmake --preset <preset> (Ninja).
configure() {
  local preset="$1"
  local cache
  cache="$(preset_dir "$preset")/CMakeCache.txt"
  if [[ -f "$cache" ]] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$cache"; then
    log "$(preset_dir "$preset") was configured with another generator: starting it afresh"
    rm -rf "$cache" "$(dirname "$cache")/CMakeFiles"
  fi
  log "configuring preset ${preset}"
  (cd "${DISTLOCK_ROOT}" && cmake --preset "$preset")
}

# build <preset> [targets...]: everything by default.
build() {
  local preset="$1"
  shift
  local args=(--build --preset "$preset" --parallel "$(jobs_count)")
  local target
  for target in "$@"; do
    args+=(--target "$target")
  done
  log "building preset ${preset}${*:+: $*}"
  (cd "${DISTLOCK_ROOT}" && cmake "${args[@]}")
}

# run_tests <preset> [ctest arguments...]
run_tests() {
  local preset="$1"
  shift
  log "running the tests of preset ${preset}"
  (cd "${DISTLOCK_ROOT}" &&
    ctest --preset "$preset" --parallel "${DISTLOCK_TEST_JOBS:-$(jobs_count)}" "$@")
}
