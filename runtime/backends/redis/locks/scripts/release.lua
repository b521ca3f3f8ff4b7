-- SPDX-License-Identifier: Apache-2.0
-- Removes one acquisition's hold; the last hold deletes the lock and wakes one waiter per
-- client, or, with a time to keep it (hold_at_least), leaves it taken by nobody until then and
-- wakes every waiter to ask again ('*'). Only a lock marked as waited for wakes anyone
-- (lib/exclusive_hold.lua): an uncontended release publishes nothing.
-- Runs after lib/release_hold.lua.
-- KEYS: lock hash (an exclusive lock's, or a read-write lock's writer's)
-- ARGV: acquisition_id, release channel, the command that publishes (PUBLISH; SPUBLISH in a
-- cluster, where the channel is in the lock's slot), keep_ms (0: free the lock now)
-- Returns 1 when the hold was removed, 0 when the server did not have it (expired, taken
-- over, or already released: a retried release is harmless). Acquisition ids are unique,
-- so only the acquisition's owner can hold its field.
-- keep_ms stays text: PEXPIRE takes it as it came.
local removed, waited = release_hold(KEYS[1], ARGV[1], ARGV[4])
if waited and removed == 'freed' then
  -- The message names nobody: it wakes one waiter per client.
  redis.call(ARGV[3], ARGV[2], '')
elseif waited and removed == 'kept' then
  -- '*': every waiter asks again and learns how long the lock is kept, which may be far less
  -- than the holder's ttl it sleeps out.
  redis.call(ARGV[3], ARGV[2], '*')
end
return removed == 'gone' and 0 or 1
