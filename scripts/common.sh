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

# What the build, the tests, the example and the benchmark need (Debian 12 package names).
DISTLOCK_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libhiredis-dev redis-server redis-tools
  libgtest-dev libbenchmark-dev
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

# -DDISTLOCK_BUILD_TOOL=ON|OFF: distlock-weave is built when Clang of llvm-version.txt is
# installed (Debian: llvm-N-dev libclang-N-dev clang-N llvm-N-tools, not installed by these
# scripts yet), or as $DISTLOCK_BUILD_TOOL says.
tool_option() {
  if [[ -n "${DISTLOCK_BUILD_TOOL:-}" ]]; then
    echo "-DDISTLOCK_BUILD_TOOL=${DISTLOCK_BUILD_TOOL}"
    return 0
  fi
  local version
  version="$(head -n 1 "${DISTLOCK_ROOT}/llvm-version.txt" 2>/dev/null | tr -d '[:space:]')"
  if [[ -n "$version" && -f "/usr/lib/llvm-${version}/lib/cmake/clang/ClangConfig.cmake" ]]; then
    echo "-DDISTLOCK_BUILD_TOOL=ON"
  else
    log "warning: Clang ${version:-?} development files not found (/usr/lib/llvm-${version:-?}):" \
      "building without distlock-weave and its tests"
    echo "-DDISTLOCK_BUILD_TOOL=OFF"
  fi
}

# configure_build <build type> [extra cmake args...]: Ninja into build/.
configure_build() {
  local build_type="$1"
  shift
  if grep -q 'DISTLOCK_BUILD_TOOL' "${DISTLOCK_ROOT}/CMakeLists.txt"; then
    set -- "$(tool_option)" "$@"
  fi
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
