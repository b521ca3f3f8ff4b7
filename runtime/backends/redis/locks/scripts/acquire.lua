-- SPDX-License-Identifier: Apache-2.0
-- Takes the lock for an owner, or lets the owner take it once more (reentrancy).
-- Runs after lib/fence.lua and lib/exclusive_hold.lua.
-- KEYS: lock hash, fence counter
-- ARGV: owner, ttl_ms, acquisition_id, holder ('<host> <pid> <acquired_at>', the last in ms of
--       the client's wall clock: for people and tools, never read here), reentry ('1': the
--       owner holds a live lease on the lock; '0': it holds none)
-- Returns {1, fence} (the fence as a decimal string) when the owner holds the lock now,
-- else {0, PTTL of the lock}.
local hash, fence_key = KEYS[1], KEYS[2]
-- The ttl stays text: PEXPIRE takes it as it came, and only a reentry compares it.
local owner, ttl, id = ARGV[1], ARGV[2], ARGV[3]

return held_by(hash, owner, ttl, id, ARGV[5] == '1') or
       grant_exclusive(hash, fence_key, owner, ttl, id, ARGV[4])
