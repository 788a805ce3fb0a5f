-- Correlation threshold, one event, atomically (after the decimal64.lua prelude).
-- KEYS: 1 events ZSET (lex members '<time>:<event id>', scores 0), 2 ids HASH (event id -> time),
--       3 meta HASH (latest, notified, trimmed). All share one hash tag.
-- ARGV: 1 event time (20 digits), 2 window (20 digits), 3 threshold, 4 max events kept,
--       5 event id, 6 ttl ms, 7 listener cooldown (20 digits), 8 eviction chunk.
-- Returns: outcome (0 counted, 1 duplicate, 2 expired), count, crossed (0/1), notify (0/1),
--          and for a counted event whether the key overflowed the cap for the first time (0/1).
local events, ids, meta = KEYS[1], KEYS[2], KEYS[3]
local t, w, threshold, cap, id = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5]
local chunk = tonumber(ARGV[8])

local function forget(members)
  if #members == 0 then
    return
  end
  redis.call('ZREM', events, unpack(members))
  local names = {}
  for i = 1, #members do
    names[i] = string.sub(members[i], 22)
  end
  redis.call('HDEL', ids, unpack(names))
end

local latest = redis.call('HGET', meta, 'latest')
local before = 0
local oldCut = nil
if latest then
  local oldFrom
  oldFrom, oldCut = windowOf(latest, w)
  before = redis.call('ZLEXCOUNT', events, oldFrom, '+')
  if oldCut and t <= oldCut then
    return {2, before, 0, 0}
  end
end
local newLatest = t
if latest and latest > t then
  newLatest = latest
end
local from, cut = windowOf(newLatest, w)
local held = redis.call('HGET', ids, id)
if held and ((not cut) or held > cut) then
  return {1, before, 0, 0}
end
if held then
  redis.call('ZREM', events, held .. ':' .. id)
end
redis.call('HSET', meta, 'latest', newLatest)
if cut then
  forget(redis.call('ZRANGE', events, '-', '[' .. cut .. ';', 'BYLEX', 'LIMIT', 0, chunk))
end
local stillHeld = redis.call('ZLEXCOUNT', events, from, '+')
redis.call('ZADD', events, 0, t .. ':' .. id)
redis.call('HSET', ids, id, t)
local after = stillHeld + 1
local firstTrim = 0
if after > cap then
  forget(redis.call('ZRANGE', events, from, '+', 'BYLEX', 'LIMIT', 0, after - cap))
  after = cap
  firstTrim = redis.call('HSETNX', meta, 'trimmed', '1')
end

local crossed, notify = 0, 0
if after >= threshold and stillHeld < threshold then
  crossed = 1
  notify = shouldNotify(meta, newLatest, ARGV[7])
end
redis.call('PEXPIRE', events, ARGV[6])
redis.call('PEXPIRE', ids, ARGV[6])
redis.call('PEXPIRE', meta, ARGV[6])
return {0, after, crossed, notify, firstTrim}
