-- Reads one fleet-wide window after evicting what left it (in bounded chunks).
-- KEYS: as window_record.lua.
-- ARGV: 1 window length us, 2 eviction chunk, 3 eviction budget, 4 caller's now in us or '' for
--       the server's TIME, 5 max clock skew us (-1: no guard), then percentiles scaled by 10^6
--       as integers (99.9 -> 99900000).
-- Returns: now us, backlog (1: call again, nothing else returned), count, exact sum, rejected,
--          min member, max member, then the member at the nearest rank of each percentile
--          (members start with the value zero-padded to 19 digits).
local t, v, s, r = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local length = tonumber(ARGV[1])
local chunk = tonumber(ARGV[2])
local budget = tonumber(ARGV[3])
local guard = tonumber(ARGV[5])

local _, now = windowClock(ARGV[4], guard)
local cutoff = now - length

local function evict(key, withValues)
  local removed = 0
  while removed < budget do
    local old = redis.call('ZRANGE', key, '-inf', cutoff, 'BYSCORE', 'LIMIT', 0, chunk)
    if #old == 0 then
      return false
    end
    redis.call('ZREM', key, unpack(old))
    if withValues then
      redis.call('ZREM', v, unpack(old))
      redis.call('DECRBY', s, sumOf(old))
    end
    removed = removed + #old
    if #old < chunk then
      return false
    end
  end
  return redis.call('ZCOUNT', key, '-inf', cutoff) > 0
end

local nowText = string.format('%d', now)
if evict(t, true) or evict(r, false) then
  return {nowText, '1'}
end

local n = redis.call('ZCARD', t)
local rejected = redis.call('ZCARD', r)
if n == 0 then
  redis.call('DEL', s)
  return {nowText, '0', '0', '0', tostring(rejected)}
end
local out = {nowText, '0', tostring(n), redis.call('GET', s) or '0', tostring(rejected),
  redis.call('ZRANGE', v, 0, 0)[1], redis.call('ZRANGE', v, -1, -1)[1]}
local scale = 100000000
for i = 6, #ARGV do
  local x = tonumber(ARGV[i]) * n + scale - 1
  local rank = (x - x % scale) / scale
  if rank < 1 then rank = 1 end
  out[#out + 1] = redis.call('ZRANGE', v, rank - 1, rank - 1)[1]
end
return out
