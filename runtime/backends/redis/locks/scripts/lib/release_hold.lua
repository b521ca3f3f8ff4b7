-- SPDX-License-Identifier: Apache-2.0
-- Releasing one hold of an owner's lock hash (lib/exclusive_hold.lua's fields).

-- Removes one acquisition's hold ('h:<id>'): 'gone' when the server did not have it (expired,
-- taken over, or already released), 'counted down' when the owner holds on, 'kept' when the
-- last hold leaves the lock taken by nobody for keep_ms (text; '0': free it now), 'freed' when
-- the last hold deleted the lock; then whether the lock was marked as waited for.
local function release_hold(hash, id, keep_ms)
  local hold = 'h:' .. id
  local held = redis.call('HMGET', hash, hold, 'count', 'w')
  if not held[1] then
    return 'gone', false
  end
  local waited = held[3] ~= false
  -- A count is HINCRBY's canonical text, and at least 1 while a hold exists.
  if held[2] and held[2] ~= '1' then
    redis.call('HDEL', hash, hold)
    redis.call('HINCRBY', hash, 'count', -1)
    return 'counted down', waited
  end
  if keep_ms ~= '0' then
    -- No owner matches '': every acquire finds it busy until it expires.
    redis.call('HDEL', hash, hold)
    redis.call('HSET', hash, 'owner', '', 'count', '0')
    redis.call('PEXPIRE', hash, keep_ms)
    return 'kept', waited
  end
  -- The last hold: one HMGET and the DEL, where removing the hold and counting down first
  -- would cost two more commands on every uncontended release.
  redis.call('DEL', hash)
  return 'freed', waited
end
