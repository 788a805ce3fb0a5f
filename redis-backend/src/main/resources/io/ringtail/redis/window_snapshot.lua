-- Reads one fleet-wide window after evicting what left it.
-- Evicts in budgeted chunks (window_common.lua) and, while a backlog remains, answers only
-- "call again": a snapshot must never count an expired sample, and no call may run long.
-- KEYS: see window_common.lua.
-- ARGV: 1 window length us, 2 eviction chunk, 3 eviction budget, 4 caller's now in us or '' for
--       the server's TIME, 5 max clock skew us (-1: no guard), then percentiles scaled by 10^6
--       as integers (99.9 -> 99900000).
-- Returns: {'1'} while a backlog remains (call again); else '0', now us, count, exact sum,
--          rejected, then (if count > 0) the min value, the max value and the value at the
--          nearest rank of each percentile, each zero-padded to 19 digits.
local length = tonumber(ARGV[1])
local chunk = tonumber(ARGV[2])
local budget = tonumber(ARGV[3])
local guard = tonumber(ARGV[5])
local FIRST_PERCENTILE = 6
local PERCENT_SCALE = 100000000

local _, now = windowClock(ARGV[4], guard)
local cutoff = now - length

if evictExpired(timeKey, cutoff, chunk, budget) or evictExpired(rejectedKey, cutoff, chunk, budget) then
  return {'1'}
end

local nowText = string.format('%d', now)
local n = redis.call('ZCARD', timeKey)
local rejected = tostring(redis.call('ZCARD', rejectedKey))
if n == 0 then
  redis.call('DEL', sumKey)
  return {'0', nowText, '0', '0', rejected}
end

local function valueAtRank(rank)
  return valueOf(redis.call('ZRANGE', valueKey, rank - 1, rank - 1)[1])
end

local out = {'0', nowText, tostring(n), redis.call('GET', sumKey) or '0', rejected,
  valueAtRank(1), valueAtRank(n)}
for i = FIRST_PERCENTILE, #ARGV do
  local x = tonumber(ARGV[i]) * n + PERCENT_SCALE - 1
  local rank = (x - x % PERCENT_SCALE) / PERCENT_SCALE
  if rank < 1 then rank = 1 end
  out[#out + 1] = valueAtRank(rank)
end
return out
