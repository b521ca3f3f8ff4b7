-- Removes one acquisition's hold; the last hold deletes the lock and wakes a waiter, or, with
-- a time to keep it (hold_at_least), leaves it taken by nobody until then.
-- KEYS: lock hash[, a fair lock's queue: the last release wakes its first waiter by name]
-- ARGV: acquisition_id, release channel, the command that publishes (PUBLISH; SPUBLISH in a
-- cluster, where the channel is in the lock's slot), keep_ms (0: free the lock now)
-- Returns 1 when the hold was removed, 0 when the server did not have it (expired, taken
-- over, or already released: a retried release is harmless). Acquisition ids are unique,
-- so only the acquisition's owner can hold its field.
local hash, queue = KEYS[1], KEYS[2]
local id, channel, publish = ARGV[1], ARGV[2], ARGV[3]
-- Compared and passed on as text: the server would format every number on the way in.
local keep_ms = ARGV[4]

local hold = 'h:' .. id

local held = redis.call('HMGET', hash, hold, 'count')
if not held[1] then
  return 0
end
-- A count is HINCRBY's canonical text, and at least 1 while a hold exists.
if held[2] and held[2] ~= '1' then
  redis.call('HDEL', hash, hold)
  redis.call('HINCRBY', hash, 'count', -1)
elseif keep_ms ~= '0' then
  -- No owner matches '': every acquire finds it busy until it expires. Waiters are not
  -- woken; they wait out the expiry they are told.
  redis.call('HDEL', hash, hold)
  redis.call('HSET', hash, 'owner', '', 'count', '0')
  redis.call('PEXPIRE', hash, keep_ms)
else
  -- The last hold: one HMGET and the DEL, where removing the hold and counting down first
  -- would cost two more commands on every uncontended release.
  redis.call('DEL', hash)
  -- A fair lock's first waiter is woken alone, by name; a message that names nobody wakes one
  -- waiter per client.
  redis.call(publish, channel, queue and redis.call('ZRANGE', queue, 0, 0)[1] or '')
end
return 1
