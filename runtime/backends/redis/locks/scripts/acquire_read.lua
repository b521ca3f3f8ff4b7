-- SPDX-License-Identifier: Apache-2.0
-- Takes a read-write lock's read side: shared with other readers, granted while no writer
-- holds the lock (or the owner itself does) and, unless the owner already reads it, while no
-- writer waits (acquire_write.lua).
-- Runs after lib/fence.lua and lib/shared_holds.lua.
-- KEYS: writer hash, fence counter, readers' expiries, readers' holders, waiting writers
-- ARGV: owner, ttl_ms, acquisition_id, holder, reentry ('1': the owner holds a live read
--       lease), holds_write ('1': the owner holds a live write lease)
-- Returns {1, fence} when the owner holds a read lock now, else {0, ms to wait at most}.
local hash, fence_key, readers, reader_holders, writers = KEYS[1], KEYS[2], KEYS[3], KEYS[4],
                                                           KEYS[5]
local owner, ttl, id, holder = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]

local now = server_ms()
drop_expired(readers, reader_holders, now)
local fence = live_fence(readers, reader_holders, id)
if fence then
  return {1, fence}
end

local writer = redis.call('HGET', hash, 'owner')
if writer == owner and ARGV[6] ~= '1' then
  -- A write hold whose acquisition's reply was lost: nobody acts under it.
  redis.call('DEL', hash)
  writer = false
end
if writer and writer ~= owner then
  return {0, redis.call('PTTL', hash)}
end
if not writer and ARGV[5] ~= '1' then
  redis.call('ZREMRANGEBYSCORE', writers, '-inf', now)
  if redis.call('EXISTS', writers) == 1 then
    -- The writer's grant or withdrawal wakes us; its death, when its mark expires.
    return {0, until_first_expiry(writers, now)}
  end
end
return grant_shared(readers, reader_holders, fence_key, id, ttl, holder, now)
