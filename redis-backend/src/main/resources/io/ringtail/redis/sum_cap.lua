-- Sum cap, one amount, atomically (after the decimal64.lua prelude).
-- KEYS: 1 entries ZSET (lex members '<time>:<units>:<id>', 20 digits each, scores 0), 2 meta
--       HASH (latest, total units, denied, notified). Both share one hash tag.
-- ARGV: 1 time (20 digits), 2 window (20 digits), 3 cap units (20 digits), 4 amount units
--       (20 digits) or 'X' if it alone exceeds the cap, 5 max entries kept, 6 entry id, 7 ttl ms,
--       8 listener cooldown (20 digits), 9 eviction chunk.
-- Returns: allowed (0/1), total units, retry-after ns or 'X' (none), frees-in ns, notify (0/1).
local entries, meta = KEYS[1], KEYS[2]
local t, w, cap, a = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local chunk = tonumber(ARGV[9])

local function unitsOf(member)
  return string.sub(member, 22, 41)
end

local latest = redis.call('HGET', meta, 'latest')
if latest and latest > t then
  t = latest
end
local from, cut = windowOf(t, w)
if cut then
  while true do
    local old = redis.call('ZRANGE', entries, '-', '[' .. cut .. ';', 'BYLEX', 'LIMIT', 0, chunk)
    if #old == 0 then
      break
    end
    redis.call('ZREM', entries, unpack(old))
    local gone = ZERO
    for i = 1, #old do
      gone = dadd(gone, unitsOf(old[i]))
    end
    redis.call('HINCRBY', meta, 'total', '-' .. plain(gone))
  end
end
if redis.call('ZCARD', entries) == 0 then
  redis.call('HDEL', meta, 'total')
end
local total = pad(redis.call('HGET', meta, 'total') or '0')

local exceeds = a == 'X'
local allowed = (not exceeds) and dadd(total, a) <= cap
if allowed and a ~= ZERO then
  local amount = a
  if redis.call('ZCARD', entries) >= tonumber(ARGV[5]) then
    local newest = redis.call('ZRANGE', entries, '+', '-', 'BYLEX', 'REV', 'LIMIT', 0, 1)[1]
    redis.call('ZREM', entries, newest)
    amount = dadd(amount, unitsOf(newest))
  end
  redis.call('ZADD', entries, 0, t .. ':' .. amount .. ':' .. ARGV[6])
  redis.call('HINCRBY', meta, 'total', plain(a))
  total = dadd(total, a)
end

local retry = ZERO
if exceeds then
  retry = 'X'
elseif not allowed then
  local left = total
  local start = from
  local found = false
  while not found do
    local batch = redis.call('ZRANGE', entries, start, '+', 'BYLEX', 'LIMIT', 0, chunk)
    if #batch == 0 then
      break
    end
    for i = 1, #batch do
      left = dsub(left, unitsOf(batch[i]))
      if dadd(left, a) <= cap then
        retry = leavesIn(string.sub(batch[i], 1, 20), t, w)
        found = true
        break
      end
    end
    start = '(' .. batch[#batch]
  end
end

local frees = ZERO
local oldest = redis.call('ZRANGE', entries, from, '+', 'BYLEX', 'LIMIT', 0, 1)[1]
if oldest then
  frees = leavesIn(string.sub(oldest, 1, 20), t, w)
end

local notify = 0
if allowed then
  redis.call('HSET', meta, 'latest', t, 'denied', '0')
else
  if redis.call('HGET', meta, 'denied') ~= '1' then
    notify = shouldNotify(meta, t, ARGV[8])
  end
  redis.call('HSET', meta, 'latest', t, 'denied', '1')
end
redis.call('PEXPIRE', entries, ARGV[7])
redis.call('PEXPIRE', meta, ARGV[7])
return {allowed and 1 or 0, total, retry, frees, notify}
