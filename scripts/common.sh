# Shared by scripts/run-*.sh: non-interactive setup, package checks, configure and build.
# Source it; it sets DISTLOCK_ROOT (the repository) and DISTLOCK_BUILD_DIR (its build/).

# Nothing here may wait for a person: no stdin, no prompts.
exec </dev/null
export CI=true
export DEBIAN_FRONTEND=noninteractive
export NEEDRESTART_MODE=a
export GTEST_COLOR=no

DISTLOCK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DISTLOCK_BUILD_DIR="${DISTLOCK_ROOT}/build"

DISTLOCK_LLVM_VERSION="$(head -n 1 "${DISTLOCK_ROOT}/llvm-version.txt" | tr -d '[:space:]')"

# What the build, the tests, the example and the benchmark need (Debian 12 package names).
DISTLOCK_PACKAGES=(
  build-essential cmake ninja-build pkg-config python3
  libhiredis-dev redis-server redis-tools
  libgtest-dev libbenchmark-dev
  libzookeeper-mt-dev zookeeper libcurator-recipes-java default-jdk-headless
  faketime
  "llvm-${DISTLOCK_LLVM_VERSION}-dev" "libclang-${DISTLOCK_LLVM_VERSION}-dev"
  "clang-${DISTLOCK_LLVM_VERSION}" "llvm-${DISTLOCK_LLVM_VERSION}-tools"
  "libclang-rt-${DISTLOCK_LLVM_VERSION}-dev"
)

log() { printf '==> %s\n' "$*" >&2; }
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

# configure_build <build type> [extra cmake args...]: Ninja into build/.
configure_build() {
  local build_type="$1"
  shift
  local cache="${DISTLOCK_BUILD_DIR}/CMakeCache.txt"
  if [[ -f "$cache" ]] && ! grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$cache"; then
    log "build/ was configured with another generator: starting it afresh"
    rm -rf "${DISTLOCK_BUILD_DIR}/CMakeCache.txt" "${DISTLOCK_BUILD_DIR}/CMakeFiles"
  fi
  log "configuring build/ (${build_type})"
  cmake -S "${DISTLOCK_ROOT}" -B "${DISTLOCK_BUILD_DIR}" -G Ninja \
    -DCMAKE_BUILD_TYPE="${build_type}" "$@"
}

# build [targets...]: everything by default.
build() {
  local args=(--build "${DISTLOCK_BUILD_DIR}" --parallel "$(jobs_count)")
  local target
  for target in "$@"; do
    args+=(--target "$target")
  done
  log "building${*:+ $*}"
  cmake "${args[@]}"
}

# sanitized_tests <name> <sanitizers> <ctest label regex>: builds the runtime and its tests
# with -fsanitize=<sanitizers> into build-<name>/ (no tool, examples or benchmarks) and runs
# the tests with those labels there.
sanitized_tests() {
  local name="$1" sanitizers="$2" labels="$3"
  local dir="${DISTLOCK_ROOT}/build-${name}"
  log "configuring build-${name}/ (-fsanitize=${sanitizers})"
  cmake -S "${DISTLOCK_ROOT}" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDISTLOCK_SANITIZE="$sanitizers" -DDISTLOCK_BUILD_TESTS=ON -DDISTLOCK_BUILD_TOOL=OFF \
    -DDISTLOCK_BUILD_EXAMPLES=OFF -DDISTLOCK_BUILD_BENCH=OFF
  log "building build-${name}/"
  cmake --build "$dir" --parallel "$(jobs_count)"
  log "running the ${labels} tests under -fsanitize=${sanitizers}"
  TSAN_OPTIONS="suppressions=${DISTLOCK_ROOT}/test/sanitizers/tsan.supp" \
    ctest --test-dir "$dir" --output-on-failure --no-tests=error -L "$labels" \
    --parallel "${DISTLOCK_TEST_JOBS:-$(jobs_count)}"
}
