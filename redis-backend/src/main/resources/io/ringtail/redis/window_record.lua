-- Records samples into one fleet-wide window, atomically: evict, add, cap, expire.
-- Evicts in budgeted chunks (window_common.lua): a record call must stay short, and whatever
-- it leaves behind is evicted by the next call.
-- KEYS: see window_common.lua.
-- ARGV: 1 window length us, 2 eviction chunk, 3 eviction budget, 4 cardinality cap, 5 ttl ms,
--       6 caller's now in us or '' for the server's TIME, 7 max clock skew us (-1: no guard),
--       then triples: time us or '' (= now), member ('<value padded to 19 digits>:<event id>',
--       or the bare event id of a rejected sample), value in decimal or 'R' (rejected).
-- Returns: server now us, added, duplicates, expired (older than the window), rejected,
--          trimmed by the cap, samples whose time the skew guard replaced, eviction backlog left
--          (0/1), sum of the added samples (%.17g, for the caller's running total) -- all strings.
local length = tonumber(ARGV[1])
local chunk = tonumber(ARGV[2])
local budget = tonumber(ARGV[3])
local cap = tonumber(ARGV[4])
local ttl = ARGV[5]
local guard = tonumber(ARGV[7])
local FIRST_SAMPLE, SAMPLE_FIELDS = 8, 3

local server, now, skewed = windowClock(ARGV[6], guard)
local cutoff = now - length

local backlog = 0
if evictExpired(timeKey, cutoff, chunk, budget) then backlog = 1 end
if evictExpired(rejectedKey, cutoff, chunk, budget) then backlog = 1 end

local added, duplicates, expired, rejected, addedSum = 0, 0, 0, 0, 0
for i = FIRST_SAMPLE, #ARGV, SAMPLE_FIELDS do
  local time = now
  if ARGV[i] ~= '' and skewed == 0 then
    time = tonumber(ARGV[i])
  end
  local member, value = ARGV[i + 1], ARGV[i + 2]
  if time <= cutoff then
    expired = expired + 1
  elseif value == 'R' then
    if redis.call('ZADD', rejectedKey, 'NX', time, member) == 1 then
      rejected = rejected + 1
    else
      duplicates = duplicates + 1
    end
  elseif redis.call('ZSCORE', timeKey, member) then
    duplicates = duplicates + 1
  else
    local ok = redis.pcall('INCRBY', sumKey, value)
    if type(ok) == 'table' and ok.err then
      -- the exact sum would overflow a signed 64-bit integer: refuse the sample visibly
      redis.call('ZADD', rejectedKey, 'NX', time, member)
      rejected = rejected + 1
    else
      redis.call('ZADD', timeKey, time, member)
      redis.call('ZADD', valueKey, tonumber(value), member)
      added = added + 1
      addedSum = addedSum + tonumber(value)
    end
  end
end

-- Cardinality cap: trim the oldest samples (and rejected markers) beyond `cap`.
local trimmed = 0
local excess = redis.call('ZCARD', timeKey) - cap
if excess > 0 then
  local oldest = redis.call('ZRANGE', timeKey, 0, excess - 1)
  removeSamples(oldest, chunk)
  trimmed = #oldest
end
excess = redis.call('ZCARD', rejectedKey) - cap
if excess > 0 then
  removeMarkers(redis.call('ZRANGE', rejectedKey, 0, excess - 1), chunk)
end

if redis.call('ZCARD', timeKey) == 0 then
  redis.call('DEL', sumKey)
end
for _, key in ipairs({timeKey, valueKey, sumKey, rejectedKey}) do
  redis.call('PEXPIRE', key, ttl)
end

if skewed == 1 then
  skewed = (#ARGV - FIRST_SAMPLE + 1) / SAMPLE_FIELDS
end
return {string.format('%d', server), tostring(added), tostring(duplicates), tostring(expired),
  tostring(rejected), tostring(trimmed), tostring(skewed), tostring(backlog),
  string.format('%.17g', addedSum)}
