-- SPDX-License-Identifier: Apache-2.0
-- Takes the lock for an owner, or lets the owner take it once more (reentrancy).
-- Runs after lib/fence.lua and lib/exclusive_hold.lua.
-- KEYS: lock hash, fence counter
-- ARGV: owner, ttl_ms, acquisition_id, holder ('<host> <pid> <acquired_at>', the last in ms of
--       the client's wall clock: for people and tools, never read here), reentry ('1': the
--       owner holds a live lease on the lock; '0': it holds none), others_wait ('1': waiters
--       of the owner's client wait for the lock, so the grant is marked as waited for)
-- Returns {1, fence} (the fence as a decimal string) when the owner holds the lock now,
-- else {0, PTTL of the lock}.
local hash, fence_key = KEYS[1], KEYS[2]
-- The ttl stays text: PEXPIRE takes it as it came, and only a reentry compares it.
local owner, ttl, id = ARGV[1], ARGV[2], ARGV[3]

local held, marked = held_by(hash, owner, ttl, id, ARGV[5] == '1')
return held or grant_exclusive(hash, fence_key, owner, ttl, id, ARGV[4], marked or ARGV[6] == '1')
