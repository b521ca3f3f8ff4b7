-- SPDX-License-Identifier: Apache-2.0
-- Extends the lock to ttl_ms if this acquisition still holds it.
-- KEYS: lock hash
-- ARGV: acquisition_id, ttl_ms
-- Returns 1 when renewed, 0 when the hold is gone. Checking the acquisition's own field
-- (acquisition ids are unique) means a released lease can never extend a later
-- acquisition by the same owner.
local hash = KEYS[1]
local id, ttl = ARGV[1], tonumber(ARGV[2])

if redis.call('HEXISTS', hash, 'h:' .. id) == 0 then
  return 0
end
-- Never shorten: a reentrant hold may have been granted a longer ttl.
if redis.call('PTTL', hash) < ttl then
  redis.call('PEXPIRE', hash, ttl)
end
return 1
