-- Takes the lock for an owner, or lets the owner take it once more (reentrancy).
-- KEYS: lock hash, fence counter
-- ARGV: owner, ttl_ms, acquisition_id, host, pid
-- Returns {1, fence} (the fence as a decimal string) when the owner holds the lock now,
-- else {0, PTTL of the lock}.
local hash, fence_key = KEYS[1], KEYS[2]
local owner, ttl, id = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local hold = 'h:' .. id

-- Lua numbers are doubles: '%.0f' writes integers up to 2^53 exactly, where tostring
-- would switch to exponent notation.
local function decimal(number)
  return string.format('%.0f', number)
end

if redis.call('EXISTS', hash) == 0 then
  local time = redis.call('TIME')
  local now_us = tonumber(time[1]) * 1000000 + tonumber(time[2])
  local fence = redis.call('INCR', fence_key)
  -- A Redis without persistence forgets the counter on restart; the server clock keeps
  -- fences increasing across such restarts.
  if fence < now_us then
    fence = now_us
    redis.call('SET', fence_key, decimal(fence))
  end
  redis.call('HSET', hash,
             'owner', owner, 'count', 1, 'fence', decimal(fence), 'id', id,
             'host', ARGV[4], 'pid', ARGV[5],
             'acquired_at', decimal(math.floor(now_us / 1000)),
             hold, 1)
  redis.call('PEXPIRE', hash, ttl)
  return {1, decimal(fence)}
end

if redis.call('HGET', hash, 'owner') == owner then
  -- An acquisition seen before is a retry whose reply was lost: it holds once, not twice.
  if redis.call('HSETNX', hash, hold, 1) == 1 then
    redis.call('HINCRBY', hash, 'count', 1)
  end
  -- Reentering never shortens what an outer acquisition was granted.
  if redis.call('PTTL', hash) < ttl then
    redis.call('PEXPIRE', hash, ttl)
  end
  return {1, redis.call('HGET', hash, 'fence')}
end

return {0, redis.call('PTTL', hash)}
