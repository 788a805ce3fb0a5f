-- Sliding-log rate limiter, one request, atomically (after the decimal64.lua prelude).
-- KEYS: 1 log ZSET (lex members '<time>:<request id>', all scores 0), 2 meta HASH
--       (latest, denied, notified). Both share one hash tag.
-- ARGV: 1 time (20 digits), 2 window (20 digits), 3 limit, 4 request id, 5 ttl ms,
--       6 listener cooldown (20 digits), 7 eviction chunk.
-- Returns: allowed (0/1), remaining, retry-after ns (20 digits), notify (0/1).
local log, meta = KEYS[1], KEYS[2]
local t, w, limit = ARGV[1], ARGV[2], tonumber(ARGV[3])

local latest = redis.call('HGET', meta, 'latest')
if latest and latest > t then
  t = latest
end
local from, cut = windowOf(t, w)
if cut then
  local old = redis.call('ZRANGE', log, '-', '[' .. cut .. ';', 'BYLEX', 'LIMIT', 0, tonumber(ARGV[7]))
  if #old > 0 then
    redis.call('ZREM', log, unpack(old))
  end
end

local n = redis.call('ZLEXCOUNT', log, from, '+')
local allowed = n < limit
if allowed then
  redis.call('ZADD', log, 0, t .. ':' .. ARGV[4])
  n = n + 1
end
local remaining = limit - n
local retry = ZERO
if remaining == 0 then
  local oldest = redis.call('ZRANGE', log, from, '+', 'BYLEX', 'LIMIT', 0, 1)[1]
  retry = leavesIn(string.sub(oldest, 1, 20), t, w)
end

local notify = 0
if allowed then
  redis.call('HSET', meta, 'latest', t, 'denied', '0')
else
  if redis.call('HGET', meta, 'denied') ~= '1' then
    notify = shouldNotify(meta, t, ARGV[6])
  end
  redis.call('HSET', meta, 'latest', t, 'denied', '1')
end
redis.call('PEXPIRE', log, ARGV[5])
redis.call('PEXPIRE', meta, ARGV[5])
return {allowed and 1 or 0, remaining, retry, notify}
