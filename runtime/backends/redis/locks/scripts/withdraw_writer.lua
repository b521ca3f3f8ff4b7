-- SPDX-License-Identifier: Apache-2.0
-- A writer that stops waiting (its wait ran out) takes back its mark at once, and wakes the
-- readers it held back when it was the last writer waiting.
-- KEYS: waiting writers
-- ARGV: acquisition_id, release channel, the command that publishes
-- Returns 1 when the mark was there.
local writers = KEYS[1]
local id, channel, publish = ARGV[1], ARGV[2], ARGV[3]

if redis.call('ZREM', writers, id) == 0 then
  return 0
end
if redis.call('EXISTS', writers) == 0 then
  redis.call(publish, channel, '')
end
return 1
