-- SPDX-License-Identifier: Apache-2.0
-- Extends a reader's or a permit's hold to ttl_ms if it is still live.
-- Runs after lib/shared_holds.lua.
-- KEYS: expiries, holders
-- ARGV: acquisition_id, ttl_ms
-- Returns 1 when renewed, 0 when the hold is gone or expired.
local expiries, holders = KEYS[1], KEYS[2]
local id, ttl = ARGV[1], tonumber(ARGV[2])

local now = server_ms()
local expiry = redis.call('ZSCORE', expiries, id)
if not expiry or tonumber(expiry) <= now then
  return 0
end
-- GT: never shorten what a release that keeps the hold (hold_at_least) asked for.
redis.call('ZADD', expiries, 'XX', 'GT', now + ttl, id)
keep_key(expiries, ttl)
keep_key(holders, ttl)
return 1
