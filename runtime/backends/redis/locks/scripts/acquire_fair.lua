-- SPDX-License-Identifier: Apache-2.0
-- Takes a fair lock: the exclusive lock's hash, granted when free to the first waiter in the
-- queue (or to anyone when nobody waits). A waiter that finds it held or another first joins
-- the queue once, at the back, with what a release needs to grant it the lock, and renews its
-- entry with each retry.
-- Runs after lib/fence.lua, lib/exclusive_hold.lua, lib/shared_holds.lua, lib/fair_queue.lua.
-- KEYS: lock hash, fence counter, the queue, the queue's expiries, the queue's grants
-- ARGV: owner, ttl_ms, acquisition_id, holder, reentry (as acquire.lua), and the attempt's
--       token, which a release that grants this waiter the lock repeats: the grant came after
--       that attempt, and others_wait (as acquire.lua)
-- Returns {1, fence} when the owner holds the lock now, else {0, ms to wait at most}.
local hash, fence_key, queue, expiries, grants = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local owner, ttl, id = ARGV[1], tonumber(ARGV[2]), ARGV[3]

local held, marked = held_by(hash, owner, ttl, id, ARGV[5] == '1')
if held and held[1] == 1 then
  return held
end

local now = server_ms()
drop_dead_waiters(queue, expiries, grants, now)
local first = first_waiter(queue)
if not held and (not first or first == id) then
  if first then
    leave_queue(queue, expiries, grants, id)
  end
  return grant_exclusive(hash, fence_key, owner, ARGV[2], id, ARGV[4], marked or ARGV[7] == '1')
end

if not redis.call('ZSCORE', queue, id) then
  local time = redis.call('TIME')
  redis.call('ZADD', queue, tonumber(time[1]) * 1000000 + tonumber(time[2]), id)
  redis.call('HSET', grants, 'o:' .. id, owner, 't:' .. id, ARGV[2], 'h:' .. id, ARGV[4])
end
redis.call('HSET', grants, 'a:' .. id, ARGV[6])
redis.call('ZADD', expiries, now + ttl, id)
keep_key(queue, ttl)
keep_key(expiries, ttl)
keep_key(grants, ttl)
-- Granted the lock by a release, which says so by name; else asking again at the latest when
-- the holder's lock or the first waiter's entry would expire, and often enough to keep our own
-- entry.
local wait = held and held[2] or
             math.max(tonumber(redis.call('ZSCORE', expiries, first)) - now, 0)
return {0, math.min(wait, math.floor(ttl / 3))}
