// SPDX-License-Identifier: Apache-2.0
// node-redlock 4 (on one ioredis connection, so one "master") for bench/redis_peer_bench.
//
//   node node_redlock.js --port P --mode cycles|handoff --count N
//
// Its default settings: a refused attempt is retried retryCount times, retryDelay ±
// retryJitter ms apart (after unlocking what it got, nothing here).
'use strict';

const Redlock = require('redlock');
const { LEASE_MS, run } = require('./node_peer');

const defaults = new Redlock([{}]);

run({
  library: `redlock ${require('redlock/package.json').version} on ioredis ${require('ioredis/package.json').version}`,
  settings: `retryCount ${defaults.retryCount}, retryDelay ${defaults.retryDelay} ms, ` +
    `retryJitter ${defaults.retryJitter} ms (defaults); ttl ${LEASE_MS} ms, not extended`,
  pollMs: defaults.retryDelay + defaults.retryJitter,
  makeLock: (connection, name) => {
    const redlock = new Redlock([connection]);
    // lock() resolves only with a quorum (here: the one server) and rejects otherwise.
    return { acquire: () => redlock.lock(name, LEASE_MS), release: (lock) => lock.unlock() };
  },
}).catch((error) => {
  console.error(`node_redlock: ${error.stack || error}`);
  process.exit(1);
});
