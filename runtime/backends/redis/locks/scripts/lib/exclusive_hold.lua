-- SPDX-License-Identifier: Apache-2.0
-- One owner's hold on a lock hash (the exclusive lock, a read-write lock's writer): fields
-- owner, count, fence, id, holder and one 'h:<acquisition id>' per hold.

-- The owner's hold if it has one: {1, fence} for a retried acquisition (its reply was lost, or a
-- release granted it to this fair waiter: it holds once, not twice) or a reentry; {0, PTTL} when
-- another owner holds the lock; nil when the lock is free. Holds kept for an owner that holds no
-- lease went to acquisitions whose replies were lost (a connection that broke after the script
-- ran): nobody acts under them. Reentering would hand out their fence again; they are removed and
-- the lock is free.
local function held_by(hash, owner, ttl, id, reentry)
  local holder = redis.call('HGET', hash, 'owner')
  if holder == owner then
    local hold = 'h:' .. id
    local retried = redis.call('HEXISTS', hash, hold) == 1
    if retried or reentry then
      if not retried then
        redis.call('HSET', hash, hold, 1)
        redis.call('HINCRBY', hash, 'count', 1)
      end
      -- The owner counts its validity from this request's sending, later than the grant it
      -- retries (a lost reply, a fair waiter granted by a release) or than the outer
      -- acquisition's; never shortened for an outer acquisition.
      if redis.call('PTTL', hash) < tonumber(ttl) then
        redis.call('PEXPIRE', hash, ttl)
      end
      return {1, redis.call('HGET', hash, 'fence')}
    end
    redis.call('DEL', hash)
    return nil
  end
  if holder then
    return {0, redis.call('PTTL', hash)}
  end
  return nil
end

-- Takes a free lock hash for the owner: {1, fence}.
local function grant_exclusive(hash, fence_key, owner, ttl, id, holder)
  local fence = next_fence(fence_key)
  -- Texts, not numbers: each number would be formatted by the server on the way in.
  redis.call('HSET', hash, 'owner', owner, 'count', '1', 'fence', fence, 'id', id,
             'holder', holder, 'h:' .. id, '1')
  redis.call('PEXPIRE', hash, ttl)
  return {1, fence}
end
