-- Shared by the window scripts (prepended to each): the window's clock and exact sums.

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

-- Exact sum of the values encoded in members' 19-digit prefixes, as a decimal string:
-- split each value into high and low nine-digit halves so every double stays exact.
local function sumOf(members)
  local hi, lo = 0, 0
  for i = 1, #members do
    hi = hi + tonumber(string.sub(members[i], 1, 10))
    lo = lo + tonumber(string.sub(members[i], 11, 19))
  end
  hi = hi + math.floor(lo / 1000000000)
  lo = lo % 1000000000
  if hi == 0 then
    return string.format('%d', lo)
  end
  return string.format('%d%09d', hi, lo)
end
