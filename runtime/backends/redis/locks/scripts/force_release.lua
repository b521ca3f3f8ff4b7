-- SPDX-License-Identifier: Apache-2.0
-- An operator's force-release (the distlock command): removes every hold of one lock name, or
-- with an acquisition id only that acquisition's hold, if it still holds the lock. Waiters keep
-- their places (a fair lock's queue, a read-write lock's waiting writers) and the fence counter
-- is left alone, so the next grant's fence is above every earlier one. Each structure that lost
-- a hold publishes its release, so that waiters retry at once, as after a release.
-- Runs after lib/shared_holds.lua.
-- KEYS: lock hash, writer hash, readers' expiries, readers' holders, permits' expiries,
--       permits' holders, the fair queue
-- ARGV: acquisition id ('': every hold), the command that publishes (PUBLISH; SPUBLISH in a
--       cluster), the lock's, the read-write lock's and the permits' release channels
-- Returns one {key, acquisition id, fence, holder, count} per hold removed.
local id, publish = ARGV[1], ARGV[2]
local removed = {}

-- An owner's hash: its holds are one owner's, so an id among them removes them all.
local function release_hash(hash, channel, queue)
  local fields = redis.call('HMGET', hash, 'owner', 'id', 'fence', 'holder', 'count')
  if not fields[1] then
    return
  end
  if id ~= '' and fields[2] ~= id and redis.call('HEXISTS', hash, 'h:' .. id) == 0 then
    return
  end
  redis.call('DEL', hash)
  table.insert(removed, {hash, fields[2] or '', fields[3] or '', fields[4] or '',
                         fields[5] or '0'})
  -- A fair lock's first waiter is woken by name, as release.lua does.
  local first = queue and redis.call('ZRANGE', queue, 0, 0)[1]
  redis.call(publish, channel, first or '')
end

local function release_shared(expiries, holders, channel)
  drop_expired(expiries, holders, server_ms())
  local ids
  if id == '' then
    ids = redis.call('ZRANGE', expiries, 0, -1)
  elseif redis.call('ZSCORE', expiries, id) then
    ids = {id}
  else
    return
  end
  if #ids == 0 then
    return
  end
  for _, one in ipairs(ids) do
    local fence, holder = string.match(redis.call('HGET', holders, one) or '', '^(%S+) (.*)$')
    redis.call('ZREM', expiries, one)
    redis.call('HDEL', holders, one)
    table.insert(removed, {expiries, one, fence or '', holder or '', '1'})
  end
  redis.call(publish, channel, '')
end

release_hash(KEYS[1], ARGV[3], KEYS[7])
release_hash(KEYS[2], ARGV[4], nil)
release_shared(KEYS[3], KEYS[4], ARGV[4])
release_shared(KEYS[5], KEYS[6], ARGV[5])
return removed
