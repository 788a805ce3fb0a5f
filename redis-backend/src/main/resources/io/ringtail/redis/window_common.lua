-- Shared by the window scripts (prepended to each): the keys, the member layout, the window's
-- clock, exact sums and eviction.
-- KEYS: 1 time ZSET (member -> time us), 2 value ZSET (member -> value), 3 exact sum (string),
--       4 rejected ZSET (event id -> time us). All four share one hash tag.
local timeKey, valueKey, sumKey, rejectedKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

-- A sample's member is '<value zero-padded to 19 digits>:<event id>'; a rejected marker is the
-- bare event id. Its fields, by name:
local VALUE_DIGITS = 19
local function valueOf(member) return string.sub(member, 1, VALUE_DIGITS) end
local function highDigitsOf(member) return tonumber(string.sub(member, 1, 10)) end
local function lowDigitsOf(member) return tonumber(string.sub(member, 11, VALUE_DIGITS)) end

-- The server's TIME in us, and the window's now: the caller's reading (us) when one is given
-- and lies within the skew guard of the server's (guard < 0: no guard), else the server's.
-- The third result is 1 when the guard replaced the caller's reading.
local function windowClock(callerNow, guard)
  local clock = redis.call('TIME')
  local server = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
  if callerNow == '' then
    return server, server, 0
  end
  local now = tonumber(callerNow)
  if guard >= 0 and math.abs(now - server) > guard then
    return server, server, 1
  end
  return server, now, 0
end

-- Exact sum of the members' values, as a decimal string: high and low digits are added
-- separately so every double stays an exact integer.
local function sumOf(members)
  local hi, lo = 0, 0
  for i = 1, #members do
    hi = hi + highDigitsOf(members[i])
    lo = lo + lowDigitsOf(members[i])
  end
  hi = hi + math.floor(lo / 1000000000)
  lo = lo % 1000000000
  if hi == 0 then
    return string.format('%d', lo)
  end
  return string.format('%d%09d', hi, lo)
end

-- Removes samples (time and value entries and their part of the sum), `chunk` per command.
local function removeSamples(members, chunk)
  for i = 1, #members, chunk do
    local part = {unpack(members, i, math.min(i + chunk - 1, #members))}
    redis.call('ZREM', timeKey, unpack(part))
    redis.call('ZREM', valueKey, unpack(part))
    redis.call('DECRBY', sumKey, sumOf(part))
  end
end

-- Removes rejected markers, `chunk` per command.
local function removeMarkers(members, chunk)
  for i = 1, #members, chunk do
    redis.call('ZREM', rejectedKey, unpack(members, i, math.min(i + chunk - 1, #members)))
  end
end

-- Evicts what `key` (timeKey or rejectedKey) holds timed at or before `cutoff`: `chunk` members
-- per command, at most `budget` per call, so no call runs long. True if some are left over.
local function evictExpired(key, cutoff, chunk, budget)
  local remove = key == timeKey and removeSamples or removeMarkers
  local removed = 0
  while removed < budget do
    local old = redis.call('ZRANGE', key, '-inf', cutoff, 'BYSCORE', 'LIMIT', 0, chunk)
    if #old == 0 then
      return false
    end
    remove(old, chunk)
    removed = removed + #old
    if #old < chunk then
      return false
    end
  end
  return redis.call('ZCOUNT', key, '-inf', cutoff) > 0
end
