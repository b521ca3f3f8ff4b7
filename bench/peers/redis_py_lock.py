# SPDX-License-Identifier: Apache-2.0
"""redis-py's Lock (Debian's python3-redis, redis-py 4.x) for bench/redis_peer_bench.

  /usr/bin/python3 redis_py_lock.py --port P --mode cycles|handoff --count N

Prints one JSON line, as the Node drivers do (node_peer.js): cycles_per_s, or handoff_us
(one latency per handoff). Lock's defaults but the lease: a blocked acquire() polls every
`sleep` seconds; the lease is not extended.
"""

import argparse
import inspect
import json
import random
import threading
import time

import redis
from redis.lock import Lock

LEASE_S = 30
DEFAULTS = inspect.signature(Lock.__init__).parameters


def connect(port):
    return redis.Redis(host="127.0.0.1", port=port)


class Waiter(Lock):
    """A Lock that tells when it has been refused, so that the holder releases only then."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.refused = threading.Event()

    def do_acquire(self, token):
        won = super().do_acquire(token)
        if not won:
            self.refused.set()
        return won


def acquire(lock):
    if not lock.acquire():
        raise RuntimeError(f"acquire() of {lock.name} returned False")


def cycles_per_second(port, count):
    lock = connect(port).lock("peer-cycle", timeout=LEASE_S)

    def loop(n):
        for _ in range(n):
            acquire(lock)
            lock.release()  # raises LockNotOwnedError unless it still held the lock

    loop(max(1, count // 10))
    start = time.perf_counter()
    loop(count)
    return count / (time.perf_counter() - start)


def handoff_micros(holder, waiter):
    """The holder releases at a random point of the waiter's sleep after a refused attempt."""
    acquire(holder)
    waiter.refused.clear()
    won = {}

    def wait():
        try:
            acquire(waiter)
            won["at"] = time.perf_counter()
            # The token lives in the thread that acquired (thread_local), so it releases.
            waiter.release()
        except BaseException as error:  # re-raised by the holder
            won["error"] = error

    thread = threading.Thread(target=wait)
    thread.start()
    if not waiter.refused.wait(10):
        raise RuntimeError("the waiter made no attempt within 10 s")
    time.sleep((1 + random.uniform(0, waiter.sleep * 1000)) / 1000)
    released_at = time.perf_counter()
    holder.release()
    thread.join()
    if "error" in won:
        raise won["error"]
    if won["at"] < released_at:
        raise RuntimeError("the waiter got the lock while it was held")
    return (won["at"] - released_at) * 1e6


def handoffs(port, count):
    holder = connect(port).lock("peer-handoff", timeout=LEASE_S)
    waiter = Waiter(connect(port), "peer-handoff", timeout=LEASE_S)
    handoff_micros(holder, waiter)
    return [handoff_micros(holder, waiter) for _ in range(count)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--mode", choices=["cycles", "handoff"], required=True)
    parser.add_argument("--count", type=int, required=True)
    args = parser.parse_args()

    result = {
        "library": f"redis-py {redis.__version__}",
        "settings": f"Lock: sleep {DEFAULTS['sleep'].default} s, blocking_timeout "
        f"{DEFAULTS['blocking_timeout'].default} (defaults); timeout {LEASE_S} s, not extended",
    }
    if args.mode == "cycles":
        result["cycles_per_s"] = cycles_per_second(args.port, args.count)
    else:
        result["handoff_us"] = handoffs(args.port, args.count)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
