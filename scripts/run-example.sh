#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job: builds the shop example (Release, build-release/), whose locked functions
# distlock-weave weaves, starts a private redis-server on a free loopback port, runs several
# shop processes against it and prints what happened; then the same run built without
# weaving, to show the lost updates the locks prevent. The server and its directory are
# removed on exit. Installs missing Debian packages first.
#
#   bash scripts/run-example.sh [shop run options...]
#        default options: --processes 4 --reservations 100 --skus 3
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

ensure_packages "${DISTLOCK_PACKAGES[@]}"
configure release
build release shop shop_unwoven
woven="$(preset_dir release)/examples/shop/shop"
unwoven="$(preset_dir release)/examples/shop/shop_unwoven"

redis_server="$(command -v redis-server || echo /usr/bin/redis-server)"
redis_cli="$(command -v redis-cli || echo /usr/bin/redis-cli)"
[[ -x "$redis_server" ]] || die "redis-server not found"
[[ -x "$redis_cli" ]] || die "redis-cli not found"

redis_dir="$(mktemp -d "${TMPDIR:-/tmp}/distlock-example.XXXXXX")"
redis_pid=""
stop_redis() {
  if [[ -n "$redis_pid" ]] && kill -0 "$redis_pid" 2>/dev/null; then
    kill "$redis_pid" 2>/dev/null || true
    local waited=0
    while kill -0 "$redis_pid" 2>/dev/null && ((waited < 100)); do
      sleep 0.1
      waited=$((waited + 1))
    done
    kill -9 "$redis_pid" 2>/dev/null || true
    wait "$redis_pid" 2>/dev/null || true
  fi
  redis_pid=""
}
cleanup() {
  stop_redis
  rm -rf "$redis_dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

port_in_use() { (: <"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Start redis-server on a free port: pick one nobody answers on, start, wait for PONG from
# our own process; if it lost the race for the port, try another.
port=""
for attempt in 1 2 3 4 5 6 7 8 9 10; do
  candidate=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
  port_in_use "$candidate" && continue
  "$redis_server" --port "$candidate" --bind 127.0.0.1 --save '' --appendonly no \
    --daemonize no --dir "$redis_dir" --logfile "$redis_dir/redis.log" </dev/null &
  redis_pid=$!
  deadline=$((SECONDS + 20))
  while :; do
    if ! kill -0 "$redis_pid" 2>/dev/null; then
      wait "$redis_pid" 2>/dev/null || true
      redis_pid=""
      log "redis-server could not start on port $candidate (attempt $attempt)"
      break
    fi
    if [[ "$("$redis_cli" -h 127.0.0.1 -p "$candidate" ping 2>/dev/null)" == PONG ]]; then
      # Make sure the PONG came from our server, not from another one on that port.
      server_pid="$("$redis_cli" -h 127.0.0.1 -p "$candidate" info server 2>/dev/null |
        tr -d '\r' | sed -n 's/^process_id://p')"
      if [[ "$server_pid" == "$redis_pid" ]]; then
        port="$candidate"
      else
        stop_redis
      fi
      break
    fi
    if ((SECONDS >= deadline)); then
      log "redis-server on port $candidate was not ready within 20 s; its log:"
      cat "$redis_dir/redis.log" >&2 || true
      stop_redis
      break
    fi
    sleep 0.1
  done
  [[ -n "$port" ]] && break
done
if [[ -z "$port" ]]; then
  [[ -f "$redis_dir/redis.log" ]] && tail -n 20 "$redis_dir/redis.log" >&2
  die "could not start a private redis-server"
fi
url="redis://127.0.0.1:${port}"
log "private redis-server $("$redis_server" --version | sed -n 's/.*v=\([^ ]*\).*/\1/p') on ${url} (pid ${redis_pid})"

if [[ $# -eq 0 ]]; then
  set -- --processes 4 --reservations 100 --skus 3
fi

log "woven: shop run --url ${url} $*"
status=0
"$woven" run --url "$url" "$@" || status=$?

log "for comparison, built without weaving: shop_unwoven run --url ${url} $*"
"$unwoven" run --url "$url" "$@" || true

if [[ $status -eq 0 ]]; then
  log "example OK: no update was lost under the woven locks"
else
  log "example FAILED (exit status $status)"
fi
exit "$status"
