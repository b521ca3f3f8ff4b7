-- SPDX-License-Identifier: Apache-2.0
-- A fair waiter whose wait ran out leaves the queue at once. If a release granted it the lock
-- meanwhile, it gives the lock back: to the next waiter, as a release does. When it was first
-- and the lock is free, the next waiter is granted the lock.
-- Runs after lib/fence.lua, lib/exclusive_hold.lua, lib/shared_holds.lua, lib/fair_queue.lua,
-- lib/release_hold.lua.
-- KEYS: lock hash, fence counter, the queue, the queue's expiries, the queue's grants
-- ARGV: acquisition_id, release channel, the command that publishes
-- Returns 1 when it was queued or granted.
local hash, fence_key, queue, expiries, grants = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local id, channel, publish = ARGV[1], ARGV[2], ARGV[3]

if redis.call('HEXISTS', hash, 'h:' .. id) == 1 then
  local removed, waited = release_hold(hash, id, '0')
  if removed == 'freed' then
    hand_over(hash, fence_key, queue, expiries, grants, channel, publish, waited)
  end
  return 1
end
local was_first = first_waiter(queue) == id
if redis.call('ZREM', queue, id) == 0 then
  return 0
end
leave_queue(queue, expiries, grants, id)
if was_first and redis.call('EXISTS', hash) == 0 then
  -- No hash keeps a mark for the plain waiters here: they are woken as if it had one.
  hand_over(hash, fence_key, queue, expiries, grants, channel, publish, true)
end
return 1
