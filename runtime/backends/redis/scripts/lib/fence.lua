-- The next fence of a lock: the larger of the counter's next value and the server's time in
-- microseconds. A counter that is new, forgotten (a restart without persistence) or behind (a
-- replica promoted before the last increment reached it) still hands out a fence above every
-- earlier one, as long as the servers' clocks differ by less than the time between the two
-- grants (a failover takes seconds).
local function next_fence(fence_key)
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
  -- Lua numbers are doubles: '%.0f' writes integers up to 2^53 exactly, where tostring
  -- would switch to exponent notation.
  local fence = string.format('%.0f',
                              math.max(tonumber(redis.call('GET', fence_key) or '0') + 1, now))
  redis.call('SET', fence_key, fence)
  return fence
end
