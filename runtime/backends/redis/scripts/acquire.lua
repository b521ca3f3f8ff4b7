-- Takes the lock for an owner, or lets the owner take it once more (reentrancy).
-- KEYS: lock hash, fence counter
-- ARGV: owner, ttl_ms, acquisition_id, holder ('<host> <pid> <acquired_at>', the last in ms of
--       the client's wall clock: for people and tools, never read here), reentry ('1': the
--       owner holds a live lease on the lock; '0': it holds none)
-- Returns {1, fence} (the fence as a decimal string) when the owner holds the lock now,
-- else {0, PTTL of the lock}.
local hash, fence_key = KEYS[1], KEYS[2]
local owner, ttl, id = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local reentry = ARGV[5] == '1'
local hold = 'h:' .. id

local holder = redis.call('HGET', hash, 'owner')

if holder == owner then
  -- An acquisition seen before is a retry whose reply was lost: it holds once, not twice.
  if redis.call('HEXISTS', hash, hold) == 1 then
    return {1, redis.call('HGET', hash, 'fence')}
  end
  if reentry then
    redis.call('HSET', hash, hold, 1)
    redis.call('HINCRBY', hash, 'count', 1)
    -- Reentering never shortens what an outer acquisition was granted.
    if redis.call('PTTL', hash) < ttl then
      redis.call('PEXPIRE', hash, ttl)
    end
    return {1, redis.call('HGET', hash, 'fence')}
  end
  -- The owner holds no lease, so these holds went to acquisitions whose replies were lost
  -- (a connection that broke after the script ran): nobody acts under them. Reentering
  -- would hand out their fence again; a fresh grant takes them over instead.
  redis.call('DEL', hash)
  holder = false
end

if not holder then
  -- The larger of the counter's next value and the server's time in microseconds. A counter
  -- that is new, forgotten (a restart without persistence) or behind (a replica promoted
  -- before the last increment reached it) still hands out a fence above every earlier one,
  -- as long as the servers' clocks differ by less than the time between the two grants (a
  -- failover takes seconds).
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
  -- Lua numbers are doubles: '%.0f' writes integers up to 2^53 exactly, where tostring
  -- would switch to exponent notation.
  local fence = string.format('%.0f',
                              math.max(tonumber(redis.call('GET', fence_key) or '0') + 1, now))
  redis.call('SET', fence_key, fence)
  redis.call('HSET', hash, 'owner', owner, 'count', 1, 'fence', fence, 'id', id,
             'holder', ARGV[4], hold, 1)
  redis.call('PEXPIRE', hash, ttl)
  return {1, fence}
end

return {0, redis.call('PTTL', hash)}
