-- Extends the lock to ttl_ms if this acquisition still holds it.
-- KEYS: lock hash
-- ARGV: owner, acquisition_id, ttl_ms
-- Returns 1 when renewed, 0 when the hold is gone. Checking the acquisition's own field
-- means a released lease can never extend a later acquisition by the same owner.
local hash = KEYS[1]
local owner, id, ttl = ARGV[1], ARGV[2], tonumber(ARGV[3])

if redis.call('HGET', hash, 'owner') ~= owner or redis.call('HEXISTS', hash, 'h:' .. id) == 0 then
  return 0
end
-- Never shorten: a reentrant hold may have been granted a longer ttl.
if redis.call('PTTL', hash) < ttl then
  redis.call('PEXPIRE', hash, ttl)
end
return 1
