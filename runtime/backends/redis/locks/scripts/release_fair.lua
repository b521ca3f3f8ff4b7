-- SPDX-License-Identifier: Apache-2.0
-- Removes one acquisition's hold on a fair lock, as release.lua does; the last hold hands the
-- lock straight to the first live waiter in the queue and tells it so by name, which saves the
-- waiter a round trip to ask for it.
-- Runs after lib/fence.lua, lib/exclusive_hold.lua, lib/shared_holds.lua, lib/fair_queue.lua,
-- lib/release_hold.lua.
-- KEYS: lock hash, fence counter, the queue, the queue's expiries, the queue's grants
-- ARGV: as release.lua
-- Returns as release.lua.
local removed, waited = release_hold(KEYS[1], ARGV[1], ARGV[4])
if removed == 'freed' then
  hand_over(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV[2], ARGV[3], waited)
elseif removed == 'kept' and (waited or redis.call('EXISTS', KEYS[3]) == 1) then
  -- Every waiter asks again, as after release.lua's kept release; a waiter queued while the
  -- lock was free but another was first never saw it held, so never marked it.
  redis.call(ARGV[3], ARGV[2], '*')
end
return removed == 'gone' and 0 or 1
