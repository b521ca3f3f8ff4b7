-- SPDX-License-Identifier: Apache-2.0
-- One owner's hold on a lock hash (the exclusive lock, a read-write lock's writer): fields
-- owner, count, fence, id, holder, one 'h:<acquisition id>' per hold, and 'w' when somebody may
-- wait for it: an acquisition that finds the lock held by another owner sets it, and only a
-- release of a marked hash publishes (release.lua). A grant starts unmarked unless the grantee
-- says that waiters of its own client are still waiting (they tried before the grant, so no
-- failing try of theirs marks it), or the hash it replaces was marked.

-- The owner's hold if it has one: {1, fence} for a retried acquisition (its reply was lost, or a
-- release granted it to this fair waiter: it holds once, not twice) or a reentry; {0, PTTL} when
-- another owner holds the lock, which is marked as waited for; nil when the lock is free, and
-- then whether it was marked. Holds kept for an owner that holds no lease went to acquisitions
-- whose replies were lost (a connection that broke after the script ran): nobody acts under
-- them. Reentering would hand out their fence again; they are removed and the lock is free.
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
    local marked = redis.call('HEXISTS', hash, 'w') == 1
    redis.call('DEL', hash)
    return nil, marked
  end
  if holder then
    redis.call('HSET', hash, 'w', '1')
    return {0, redis.call('PTTL', hash)}
  end
  return nil, false
end

-- Takes a free lock hash for the owner, marked as waited for if `waited`: {1, fence}.
local function grant_exclusive(hash, fence_key, owner, ttl, id, holder, waited)
  local fence = next_fence(fence_key)
  -- Texts, not numbers: each number would be formatted by the server on the way in.
  redis.call('HSET', hash, 'owner', owner, 'count', '1', 'fence', fence, 'id', id,
             'holder', holder, 'h:' .. id, '1')
  if waited then
    redis.call('HSET', hash, 'w', '1')
  end
  redis.call('PEXPIRE', hash, ttl)
  return {1, fence}
end
