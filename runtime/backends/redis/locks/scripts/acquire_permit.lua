-- SPDX-License-Identifier: Apache-2.0
-- Takes one of a semaphore's permits: granted while fewer than `permits` live holds exist.
-- Each acquisition is a hold of its own (no reentry), with its own expiry and fence.
-- Runs after lib/fence.lua and lib/shared_holds.lua.
-- KEYS: permits' expiries, permits' holders, fence counter
-- ARGV: owner (unused: permits are not reentered), ttl_ms, acquisition_id, holder, reentry
--       (unused), permits
-- Returns {1, fence} when the acquisition holds a permit now, else {0, ms until the first
-- permit would expire}.
local expiries, holders, fence_key = KEYS[1], KEYS[2], KEYS[3]
local ttl, id, holder, permits = tonumber(ARGV[2]), ARGV[3], ARGV[4], tonumber(ARGV[6])

local now = server_ms()
drop_expired(expiries, holders, now)
local fence = live_fence(expiries, holders, id)
if fence then
  return {1, fence}
end
if redis.call('ZCARD', expiries) < permits then
  return grant_shared(expiries, holders, fence_key, id, ttl, holder, now)
end
return {0, until_first_expiry(expiries, now)}
