-- Adds one process's delta to one bucket of a histogram window, at most once.
-- KEYS: 1 counts, 2 meta, 3 the group's freshness hash (see histogram_common.lua).
-- ARGV: 1 publisher id, 2 delta sequence number (rising per publisher; a process sends a
--       bucket's next delta only after the previous one was answered), 3 as-of time
--       (nanoseconds of the window's time base), 4 time to live in ms, 5 count, 6 sum,
--       7 min, 8 max, 9 rejected, 10 delta slots as a MessagePack array [slot, count, ...],
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
  local delta = cmsgpack.unpack(ARGV[10])
  local stored = redis.call('GET', counts)
  local merged = delta
  if stored then
    merged = mergeSlots(cmsgpack.unpack(stored), delta)
  end
  redis.call('SET', counts, cmsgpack.pack(merged), 'PX', ttl)
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

if redis.call('HSET', fresh, ARGV[1], ARGV[3] .. ' ' .. ARGV[11]) == 1 then
  -- a publisher new to this group: forget those whose latest bucket has left the window
  local oldest = tonumber(ARGV[12])
  local all = redis.call('HGETALL', fresh)
  for i = 1, #all, 2 do
    if tonumber(string.match(all[i + 1], '%S+$')) < oldest then
      redis.call('HDEL', fresh, all[i])
    end
  end
end
if redis.call('PTTL', fresh) < tonumber(ttl) then
  redis.call('PEXPIRE', fresh, ttl)
end
return {'1', t[1], t[2]}
