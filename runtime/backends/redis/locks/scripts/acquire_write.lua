-- SPDX-License-Identifier: Apache-2.0
-- Takes a read-write lock's write side: the writer's hash is the exclusive lock's, and the
-- lock is free for a writer only when no reader holds it. A writer that finds readers queues
-- as waiting, and readers that are not already reading hold back while one waits: a stream of
-- readers cannot starve the writers.
-- Runs after lib/fence.lua, lib/exclusive_hold.lua and lib/shared_holds.lua.
-- KEYS: writer hash, fence counter, readers' expiries, readers' holders, waiting writers
-- ARGV: owner, ttl_ms, acquisition_id, holder, reentry (as acquire.lua)
-- Returns {1, fence} when the owner holds the write lock now, else {0, ms to wait at most}.
local hash, fence_key, readers, reader_holders, writers = KEYS[1], KEYS[2], KEYS[3], KEYS[4],
                                                           KEYS[5]
local owner, ttl, id = ARGV[1], tonumber(ARGV[2]), ARGV[3]

local held = held_by(hash, owner, ttl, id, ARGV[5] == '1')
if held then
  return held
end

local now = server_ms()
drop_expired(readers, reader_holders, now)
redis.call('ZREMRANGEBYSCORE', writers, '-inf', now)
if redis.call('EXISTS', readers) == 0 then
  redis.call('ZREM', writers, id)
  -- Marked as waited for: the readers that a waiting writer held back wait for its release,
  -- and had no hash to mark.
  return grant_exclusive(hash, fence_key, owner, ttl, id, ARGV[4], true)
end
-- Waiting for the readers: marked for one ttl, which the waiter's retries renew; a waiter that
-- dies stops holding readers back one ttl later. It retries at the latest when the first
-- reader's hold would expire, and early enough to renew its mark.
redis.call('ZADD', writers, now + ttl, id)
keep_key(writers, ttl)
return {0, math.min(until_first_expiry(readers, now), math.floor(ttl / 3))}
