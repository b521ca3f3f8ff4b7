-- A fair waiter whose wait ran out leaves the queue at once; when it was first and the lock is
-- free, the next waiter is woken by name.
-- Runs after lib/fair_queue.lua.
-- KEYS: lock hash, the queue, the queue's expiries
-- ARGV: acquisition_id, release channel, the command that publishes
-- Returns 1 when it was queued.
local hash, queue, expiries = KEYS[1], KEYS[2], KEYS[3]
local id, channel, publish = ARGV[1], ARGV[2], ARGV[3]

local was_first = first_waiter(queue) == id
if redis.call('ZREM', queue, id) == 0 then
  return 0
end
redis.call('ZREM', expiries, id)
if was_first and redis.call('EXISTS', hash) == 0 then
  local next = first_waiter(queue)
  if next then
    redis.call(publish, channel, next)
  end
end
return 1
