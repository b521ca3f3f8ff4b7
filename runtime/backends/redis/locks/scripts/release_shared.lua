-- SPDX-License-Identifier: Apache-2.0
-- Removes a reader's or a permit's hold, or with a time to keep it (hold_at_least) leaves it
-- taken by nobody until then. Publishes to wake a waiter: after every permit, after the last
-- reader (only writers wait for readers); a kept hold wakes every waiter ('*').
-- Runs after lib/shared_holds.lua.
-- KEYS: expiries, holders
-- ARGV: acquisition_id, release channel, the command that publishes, keep_ms, wake ('each':
--       every release frees room for a waiter; 'last': only the last hold's release does)
-- Returns 1 when the hold was removed, 0 when the server did not have it (expired, or already
-- released: a retried release is harmless).
local expiries, holders = KEYS[1], KEYS[2]
local id, channel, publish = ARGV[1], ARGV[2], ARGV[3]
local keep_ms, wake = tonumber(ARGV[4]), ARGV[5]

local now = server_ms()
drop_expired(expiries, holders, now)
if not redis.call('ZSCORE', expiries, id) then
  return 0
end
if keep_ms > 0 then
  -- The hold stays, under no acquisition that could renew it, until it expires.
  redis.call('ZADD', expiries, 'XX', now + keep_ms, id)
  keep_key(expiries, keep_ms)
  keep_key(holders, keep_ms)
  -- Every waiter asks again, as after release.lua's kept release.
  redis.call(publish, channel, '*')
  return 1
end
redis.call('ZREM', expiries, id)
redis.call('HDEL', holders, id)
if wake == 'each' or redis.call('EXISTS', expiries) == 0 then
  redis.call(publish, channel, '')
end
return 1
