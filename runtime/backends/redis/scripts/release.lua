-- Removes one acquisition's hold; the last hold deletes the lock and wakes a waiter.
-- KEYS: lock hash
-- ARGV: acquisition_id, release channel, the command that publishes (PUBLISH; SPUBLISH in a
-- cluster, where the channel is in the lock's slot)
-- Returns 1 when the hold was removed, 0 when the server did not have it (expired, taken
-- over, or already released: a retried release is harmless). Acquisition ids are unique,
-- so only the acquisition's owner can hold its field.
local hash = KEYS[1]
local id, channel, publish = ARGV[1], ARGV[2], ARGV[3]

if redis.call('HDEL', hash, 'h:' .. id) == 0 then
  return 0
end
if redis.call('HINCRBY', hash, 'count', -1) <= 0 then
  redis.call('DEL', hash)
  redis.call(publish, channel, id)
end
return 1
