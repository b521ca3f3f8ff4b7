-- SPDX-License-Identifier: Apache-2.0
-- A fair lock's queue of waiters: a sorted set of acquisition ids in arrival order (scored by
-- the server's time in microseconds when each joined), a sorted set of when each entry
-- expires (ms), which the waiter's retries push on, and a hash of what a release needs to grant
-- the lock to each ('o:<id>' its owner, 't:<id>' its ttl, 'h:<id>' its holder, 'a:<id>' the
-- token of its latest attempt). A waiter that dies leaves the queue when its entry expires,
-- pruned by the next script that looks.

local function leave_queue(queue, expiries, grants, id)
  redis.call('ZREM', queue, id)
  redis.call('ZREM', expiries, id)
  redis.call('HDEL', grants, 'o:' .. id, 't:' .. id, 'h:' .. id, 'a:' .. id)
end

-- Forgets the waiters whose entries expired.
local function drop_dead_waiters(queue, expiries, grants, now)
  local dead = redis.call('ZRANGEBYSCORE', expiries, '-inf', now)
  for _, id in ipairs(dead) do
    leave_queue(queue, expiries, grants, id)
  end
end

-- The first live waiter, or nil.
local function first_waiter(queue)
  return redis.call('ZRANGE', queue, 0, 0)[1]
end

-- Gives the free lock to the first live waiter and publishes '<id> <fence> <attempt token>', so
-- that it holds the lock without asking again, counted from the sending of that attempt. A
-- waiter queued by a client that stored nothing to grant with (an older version) is named
-- alone and takes the lock with its next attempt. With nobody queued, a message that names
-- nobody wakes the plain lock's waiters, if the lock was marked as `waited` for; the grant
-- carries the mark on for them.
local function hand_over(hash, fence_key, queue, expiries, grants, channel, publish, waited)
  local now = server_ms()
  drop_dead_waiters(queue, expiries, grants, now)
  local first = first_waiter(queue)
  if not first then
    if waited then
      redis.call(publish, channel, '')
    end
    return
  end
  local wanted = redis.call('HMGET', grants, 'o:' .. first, 't:' .. first, 'h:' .. first,
                           'a:' .. first)
  if not wanted[1] then
    redis.call(publish, channel, first)
    return
  end
  leave_queue(queue, expiries, grants, first)
  -- The holder text ends with when the lock was acquired: now, not when the waiter queued.
  local holder = string.gsub(wanted[3], '%d+$', tostring(now))
  local fence = grant_exclusive(hash, fence_key, wanted[1], wanted[2], first, holder, waited)[2]
  redis.call(publish, channel, first .. ' ' .. fence .. ' ' .. (wanted[4] or ''))
end
