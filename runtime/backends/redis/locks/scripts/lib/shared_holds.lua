-- SPDX-License-Identifier: Apache-2.0
-- Holds that many acquisitions have at once (a read-write lock's readers, a semaphore's
-- permits), each with its own expiry: a sorted set of acquisition ids scored by when each
-- expires (the server's clock, in ms), and a hash of each one's '<fence> <holder>'. Both keys
-- expire when the longest-lived hold would.

local function server_ms()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- Extends a key's expiry to at least ttl ms from now, never shortening it.
local function keep_key(key, ttl)
  if redis.call('PTTL', key) < ttl then
    redis.call('PEXPIRE', key, ttl)
  end
end

-- Forgets the holds that expired: their holders died, or stopped renewing.
local function drop_expired(expiries, holders, now)
  local expired = redis.call('ZRANGEBYSCORE', expiries, '-inf', now)
  if #expired == 0 then
    return
  end
  for _, id in ipairs(expired) do
    redis.call('HDEL', holders, id)
  end
  redis.call('ZREMRANGEBYSCORE', expiries, '-inf', now)
end

-- The fence of a live hold (a retried acquisition whose reply was lost), or nil.
local function live_fence(expiries, holders, id)
  if not redis.call('ZSCORE', expiries, id) then
    return nil
  end
  local held = redis.call('HGET', holders, id)
  return held and string.match(held, '^%S+')
end

local function grant_shared(expiries, holders, fence_key, id, ttl, holder, now)
  local fence = next_fence(fence_key)
  redis.call('ZADD', expiries, now + ttl, id)
  redis.call('HSET', holders, id, fence .. ' ' .. holder)
  keep_key(expiries, ttl)
  keep_key(holders, ttl)
  return {1, fence}
end

-- How long until the earliest of the holds in `expiries` expires (0 when there are none).
local function until_first_expiry(expiries, now)
  local first = redis.call('ZRANGE', expiries, 0, 0, 'WITHSCORES')
  if not first[2] then
    return 0
  end
  return math.max(tonumber(first[2]) - now, 0)
end
