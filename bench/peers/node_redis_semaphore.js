// SPDX-License-Identifier: Apache-2.0
// redis-semaphore's Mutex (on ioredis) for bench/redis_peer_bench.
//
//   node node_redis_semaphore.js --port P --mode cycles|handoff --count N
//
// Its default settings but the lease: a refused attempt is retried every retryInterval ms
// until acquireTimeout; a held lock is refreshed every 0.8 lockTimeout.
'use strict';

const { Mutex, defaultTimeoutOptions: defaults } = require('redis-semaphore');
const { LEASE_MS, run } = require('./node_peer');

run({
  library: `redis-semaphore ${require('redis-semaphore/package.json').version} on ioredis ${require('ioredis/package.json').version}`,
  settings: `Mutex: retryInterval ${defaults.retryInterval} ms, acquireTimeout ` +
    `${defaults.acquireTimeout} ms (defaults); lockTimeout ${LEASE_MS} ms, refreshed every ` +
    `${0.8 * LEASE_MS} ms`,
  pollMs: defaults.retryInterval,
  makeLock: (connection, name) => {
    const mutex = new Mutex(connection, name, { lockTimeout: LEASE_MS });
    // acquire() throws a TimeoutError when it gives up.
    return {
      acquire: async () => {
        await mutex.acquire();
        return mutex;
      },
      release: (held) => held.release(),
    };
  },
}).catch((error) => {
  console.error(`node_redis_semaphore: ${error.stack || error}`);
  process.exit(1);
});
