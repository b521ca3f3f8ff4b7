// SPDX-License-Identifier: Apache-2.0
// What the Node drivers of bench/redis_peer_bench share: the command line, the two loops and
// the one JSON line they print. A driver hands run() its library's locks as
// { acquire() -> handle, release(handle) }, each on its own ioredis connection.
//
//   node <driver>.js --port P --mode cycles|handoff --count N
'use strict';

const { performance } = require('node:perf_hooks');
const { setTimeout: sleep } = require('node:timers/promises');
const Redis = require('ioredis');

// The lease every contender asks for, distlock included.
const LEASE_MS = 30000;

function parseArgs(argv) {
  const args = { port: 0, mode: '', count: 0 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--port') args.port = Number(value);
    else if (flag === '--mode') args.mode = value;
    else if (flag === '--count') args.count = Number(value);
    else throw new Error(`unknown argument ${flag}`);
  }
  if (!(args.port > 0) || !['cycles', 'handoff'].includes(args.mode) || !(args.count > 0)) {
    throw new Error('usage: --port P --mode cycles|handoff --count N');
  }
  return args;
}

async function cyclesPerSecond(lock, count) {
  const loop = async (n) => {
    for (let i = 0; i < n; i++) await lock.release(await lock.acquire());
  };
  // V8 compiles the loop's code only once it has run a while: a short run would time the
  // interpreter.
  await loop(Math.max(Math.ceil(count / 10), 2000));
  const start = performance.now();
  await loop(count);
  return count / ((performance.now() - start) / 1000);
}

// One handoff: the holder takes the lock, the waiter asks for it, and once the waiter has been
// refused the holder releases at a random point of the waiter's poll interval (`pollMs`),
// so that the figure is the average over where in its sleep the release finds the waiter.
async function handoffMicros(holder, waiter, waiterConnection, pollMs) {
  const held = await holder.acquire();
  let releasedAt = null;
  const won = waiter.acquire().then((handle) => {
    const at = performance.now();
    if (releasedAt === null) throw new Error('the waiter got the lock while it was held');
    return { handle, at };
  });
  // Replies on one connection come in order: once the PING's is here, so is the refusal of
  // the waiter's first attempt, sent before it.
  await waiterConnection.ping();
  await sleep(1 + Math.random() * pollMs);
  releasedAt = performance.now();
  await holder.release(held);
  const { handle, at } = await won;
  await waiter.release(handle);
  return (at - releasedAt) * 1000;
}

// makeLock(connection, name) -> { acquire, release }; `library` and `settings` go into the
// output as they are; `pollMs` is the waiter's longest sleep between attempts.
async function run({ library, settings, pollMs, makeLock }) {
  const args = parseArgs(process.argv.slice(2));
  const connections = [new Redis({ port: args.port, host: '127.0.0.1' })];
  const result = { library, settings };
  try {
    if (args.mode === 'cycles') {
      result.cycles_per_s = await cyclesPerSecond(makeLock(connections[0], 'peer-cycle'), args.count);
    } else {
      connections.push(new Redis({ port: args.port, host: '127.0.0.1' }));
      const holder = makeLock(connections[0], 'peer-handoff');
      const waiter = makeLock(connections[1], 'peer-handoff');
      await handoffMicros(holder, waiter, connections[1], pollMs);
      result.handoff_us = [];
      for (let i = 0; i < args.count; i++) {
        result.handoff_us.push(await handoffMicros(holder, waiter, connections[1], pollMs));
      }
    }
  } finally {
    for (const connection of connections) connection.disconnect();
  }
  console.log(JSON.stringify(result));
}

module.exports = { LEASE_MS, run };
