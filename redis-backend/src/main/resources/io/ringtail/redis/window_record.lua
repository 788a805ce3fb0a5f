-- Records samples into one fleet-wide window, atomically: evict (bounded), add, cap, expire.
-- KEYS: 1 time ZSET (member -> time us), 2 value ZSET (member -> value), 3 exact sum (string),
--       4 rejected ZSET (event id -> time us). All four share one hash tag.
-- ARGV: 1 window length us, 2 eviction chunk, 3 eviction budget, 4 cardinality cap, 5 ttl ms,
--       6 caller's now in us or '' for the server's TIME, 7 max clock skew us (-1: no guard),
--       then triples: time us or '' (= now), member ('<value padded to 19 digits>:<event id>',
--       or the bare event id of a rejected sample), value in decimal or 'R' (rejected).
-- Returns: server now us, added, duplicates, expired (older than the window), rejected,
--          trimmed by the cap, samples whose time the skew guard replaced, eviction backlog left
--          (0/1), sum of the added samples (%.17g, for the caller's running total) -- all strings.
local t, v, s, r = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local length = tonumber(ARGV[1])
local chunk = tonumber(ARGV[2])
local budget = tonumber(ARGV[3])
local cap = tonumber(ARGV[4])
local ttl = ARGV[5]
local guard = tonumber(ARGV[7])

local server, now, skewed = windowClock(ARGV[6], guard)
local cutoff = now - length

local function drop(members, withValues)
  for i = 1, #members, chunk do
    local part = {}
    for j = i, math.min(i + chunk - 1, #members) do
      part[#part + 1] = members[j]
    end
    if withValues then
      redis.call('ZREM', t, unpack(part))
      redis.call('ZREM', v, unpack(part))
      redis.call('DECRBY', s, sumOf(part))
    else
      redis.call('ZREM', r, unpack(part))
    end
  end
end

-- Evicts members timed at or before the cutoff, at most `budget` per key; true if some remain.
local function evict(key, withValues)
  local removed = 0
  while removed < budget do
    local old = redis.call('ZRANGE', key, '-inf', cutoff, 'BYSCORE', 'LIMIT', 0, chunk)
    if #old == 0 then
      return false
    end
    drop(old, withValues)
    removed = removed + #old
    if #old < chunk then
      return false
    end
  end
  return redis.call('ZCOUNT', key, '-inf', cutoff) > 0
end

local backlog = 0
if evict(t, true) then backlog = 1 end
if evict(r, false) then backlog = 1 end

local added, duplicates, expired, rejected, addedSum = 0, 0, 0, 0, 0
for i = 8, #ARGV, 3 do
  local time = now
  if ARGV[i] ~= '' and skewed == 0 then
    time = tonumber(ARGV[i])
  end
  local member, value = ARGV[i + 1], ARGV[i + 2]
  if time <= cutoff then
    expired = expired + 1
  elseif value == 'R' then
    if redis.call('ZADD', r, 'NX', time, member) == 1 then
      rejected = rejected + 1
    else
      duplicates = duplicates + 1
    end
  elseif redis.call('ZSCORE', t, member) then
    duplicates = duplicates + 1
  else
    local ok = redis.pcall('INCRBY', s, value)
    if type(ok) == 'table' and ok.err then
      -- the exact sum would overflow a signed 64-bit integer: refuse the sample visibly
      redis.call('ZADD', r, 'NX', time, member)
      rejected = rejected + 1
    else
      redis.call('ZADD', t, time, member)
      redis.call('ZADD', v, tonumber(value), member)
      added = added + 1
      addedSum = addedSum + tonumber(value)
    end
  end
end

-- Cardinality cap: trim the oldest samples (and rejected markers) beyond `cap`.
local trimmed = 0
local excess = redis.call('ZCARD', t) - cap
if excess > 0 then
  local oldest = redis.call('ZRANGE', t, 0, excess - 1)
  drop(oldest, true)
  trimmed = trimmed + #oldest
end
excess = redis.call('ZCARD', r) - cap
if excess > 0 then
  drop(redis.call('ZRANGE', r, 0, excess - 1), false)
end

if redis.call('ZCARD', t) == 0 then
  redis.call('DEL', s)
end
redis.call('PEXPIRE', t, ttl)
redis.call('PEXPIRE', v, ttl)
redis.call('PEXPIRE', s, ttl)
redis.call('PEXPIRE', r, ttl)

if skewed == 1 then
  skewed = (#ARGV - 7) / 3
end
return {string.format('%d', server), tostring(added), tostring(duplicates), tostring(expired),
  tostring(rejected), tostring(trimmed), tostring(skewed), tostring(backlog),
  string.format('%.17g', addedSum)}
