-- A fair lock's queue of waiters: a sorted set of acquisition ids in arrival order (scored by
-- the server's time in microseconds when each joined) and a sorted set of when each entry
-- expires (ms), which the waiter's retries push on. A waiter that dies leaves the queue when its
-- entry expires, pruned by the next script that looks.

-- Forgets the waiters whose entries expired.
local function drop_dead_waiters(queue, expiries, now)
  local dead = redis.call('ZRANGEBYSCORE', expiries, '-inf', now)
  if #dead == 0 then
    return
  end
  for _, id in ipairs(dead) do
    redis.call('ZREM', queue, id)
  end
  redis.call('ZREMRANGEBYSCORE', expiries, '-inf', now)
end

-- The first live waiter, or nil.
local function first_waiter(queue)
  return redis.call('ZRANGE', queue, 0, 0)[1]
end
