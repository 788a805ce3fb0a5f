-- Adds one process's delta to one bucket of a histogram window, at most once.
-- KEYS: 1 counts, 2 meta, 3 the group's freshness (see histogram_common.lua).
-- ARGV: 1 publisher id, 2 delta sequence number (rising per publisher; a process sends a
--       bucket's next delta only after the previous one was answered), 3 as-of time
--       (nanoseconds of the window's time base), 4 time to live in ms, 5 count, 6 sum,
--       7 min, 8 max, 9 rejected, 10 delta slots as a MessagePack array [slot gap, count, ...],
--       11 bucket index, 12 oldest bucket index still in the window.
-- Returns: {applied ('1': added now, '0': already added by an earlier call), server seconds,
--           server microseconds}.
local counts, meta, fresh = KEYS[1], KEYS[2], KEYS[3]
local field = 'p:' .. ARGV[1]
local seq = tonumber(ARGV[2])
local ttl = ARGV[4]
local t = redis.call('TIME')

local previous = redis.call('HGET', meta, field)
if previous and tonumber(string.match(previous, '^%d+')) >= seq then
  return {'0', t[1], t[2]}
end

local n = ARGV[5]
if n ~= '0' then
  redis.call('HINCRBY', meta, 'n', n)
  redis.call('HINCRBY', meta, 's', ARGV[6])
  local lo = redis.call('HGET', meta, 'lo')
  if not lo or decimalLess(ARGV[7], lo) then
    redis.call('HSET', meta, 'lo', ARGV[7])
  end
  local hi = redis.call('HGET', meta, 'hi')
  if not hi or decimalLess(hi, ARGV[8]) then
    redis.call('HSET', meta, 'hi', ARGV[8])
  end
end
if ARGV[9] ~= '0' then
  redis.call('HINCRBY', meta, 'r', ARGV[9])
end
redis.call('HSET', meta, field, ARGV[2])
redis.call('PEXPIRE', meta, ttl)

if n ~= '0' or ARGV[9] ~= '0' then
  local m = redis.call('HMGET', meta, 'n', 's', 'lo', 'hi', 'r')
  local out = {m[1] or '0', m[2] or '0', m[3] or '0', m[4] or '0', m[5] or '0'}
  local stored = redis.call('GET', counts)
  local old, first = {}, 1
  if stored then
    old, first = cmsgpack.unpack(stored), 6
  end
  local delta = {}
  if n ~= '0' then
    delta = cmsgpack.unpack(ARGV[10])
  end
  redis.call('SET', counts, cmsgpack.pack(mergeSlotsInto(out, old, first, delta)), 'PX', ttl)
end

-- this publisher's latest publication into the group (a late retry does not move it back);
-- forget publishers whose latest bucket has left the window
local oldest = tonumber(ARGV[12])
local entries = {ARGV[1], ARGV[3], ARGV[11]}
local known = redis.call('GET', fresh)
if known then
  local e = cmsgpack.unpack(known)
  for i = 1, #e, 3 do
    if e[i] == ARGV[1] then
      if tonumber(e[i + 1]) > tonumber(ARGV[3]) then
        entries[2], entries[3] = e[i + 1], e[i + 2]
      end
    elseif tonumber(e[i + 2]) >= oldest then
      entries[#entries + 1], entries[#entries + 2], entries[#entries + 3] = e[i], e[i + 1], e[i + 2]
    end
  end
end
redis.call('SET', fresh, cmsgpack.pack(entries), 'PX', math.max(redis.call('PTTL', fresh), tonumber(ttl)))
return {'1', t[1], t[2]}
