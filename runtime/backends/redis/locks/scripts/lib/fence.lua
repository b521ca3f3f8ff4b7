-- SPDX-License-Identifier: Apache-2.0
-- The next fence of a lock: the larger of the counter's next value and the server's time in
-- microseconds. A counter that is new, forgotten (a restart without persistence) or behind (a
-- replica promoted before the last increment reached it) still hands out a fence above every
-- earlier one, as long as the servers' clocks differ by less than the time between the two
-- grants (a failover takes seconds).
local function next_fence(fence_key)
  local time = redis.call('TIME')
  -- The time as the fence's text without a number round trip ('%.0f' is costly here), then
  -- one command that sets it and returns the counter it replaced; the counter is set again
  -- only when it is not behind the clock (grants within one microsecond, a clock set back).
  local usec = time[2]
  local fence = time[1] .. string.rep('0', 6 - #usec) .. usec
  local last = redis.call('SET', fence_key, fence, 'GET')
  if last and tonumber(last) >= tonumber(time[1]) * 1000000 + tonumber(usec) then
    -- Lua numbers are doubles: '%.0f' writes integers up to 2^53 exactly, where tostring
    -- would switch to exponent notation.
    fence = string.format('%.0f', tonumber(last) + 1)
    redis.call('SET', fence_key, fence)
  end
  return fence
end
