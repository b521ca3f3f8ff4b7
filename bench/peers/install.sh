#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what bench/redis_peer_bench measures distlock against, each only when missing:
# Debian's python3-redis (redis-py 4.x) through apt, and the npm packages of package.json,
# exactly as package-lock.json pins them, into BUILD_DIR/bench/peers/node_modules, beside the
# drivers the build copies there. Nothing goes into the source tree.
#
#   bash bench/peers/install.sh BUILD_DIR
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"

[[ $# -eq 1 ]] || die "usage: bench/peers/install.sh BUILD_DIR"
source_dir="${DISTLOCK_ROOT}/bench/peers"
target="$(realpath -m "$1")/bench/peers"

ensure_packages python3-redis
command -v npm >/dev/null 2>&1 || die "npm not found (Debian: apt-get install npm)"

# Written after a successful install, inside node_modules (which npm ci empties first), so
# an install that failed halfway is not taken for a finished one.
stamp="${target}/node_modules/.distlock-installed-from"
wanted="$(cat "${source_dir}/package.json" "${source_dir}/package-lock.json" | sha256sum)"
if [[ -f "${stamp}" && "$(cat "${stamp}")" == "${wanted}" ]]; then
  exit 0
fi
log "installing the npm peers into ${target}"
mkdir -p "${target}"
cp "${source_dir}/package.json" "${source_dir}/package-lock.json" "${target}/"
npm ci --prefix "${target}" --no-audit --no-fund --loglevel=error
printf '%s\n' "${wanted}" >"${stamp}"
