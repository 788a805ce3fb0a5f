-- Sliding-log rate limiter, one request, atomically (after the decision_clock.lua prelude).
-- KEYS: 1 log ZSET (member: request id, score: its time as an offset from the key's base),
--       2 the log of the previous base (read until its entries leave the window),
--       3 meta HASH (bh, bl: base; latest: offset; shift: this base's offset from the previous
--       one, while that log may hold requests in the window; denied; notified: offset).
--       All share one hash tag.
-- ARGV: 1 deadline (server microseconds, '' for none), 2 and 3 the time's high and low halves,
--       4 window ns (at most 2^51), 5 limit, 6 request id, 7 ttl ms, 8 listener cooldown ns,
--       9 eviction chunk (at least the limit for one ZREMRANGEBYSCORE to evict everything).
-- Returns: {-1} when past the deadline (nothing changed), else allowed (0/1), remaining,
--          retry-after ns, notify (0/1), and the ns from the caller's time to the time denials
--          last until (-1 if not denied or not expressible).
local log, old, meta = KEYS[1], KEYS[2], KEYS[3]
if pastDeadline(ARGV[1]) then
  return {-1}
end
local th, tl = tonumber(ARGV[2]), tonumber(ARGV[3])
local w, limit, chunk = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[9])
local s = redis.call('HMGET', meta, 'bh', 'bl', 'latest', 'shift', 'denied', 'notified')
local sent, t, shift, notified = 0, 0, nil, nil
if s[1] then
  sent = offset(th, tl, tonumber(s[1]), tonumber(s[2]))
  t = math.max(sent, tonumber(s[3]))
  shift = tonumber(s[4])
  notified = tonumber(s[6])
  if t >= REBASE then
    -- the log moves to the previous base's slot (its entries keep their scores; shift converts
    -- them) and this time becomes the base; far jumps leave nothing in the window to convert
    redis.call('UNLINK', old)
    if t - tonumber(s[3]) < w then
      redis.call('RENAME', log, old)
      shift = t
    else
      redis.call('UNLINK', log)
      shift = nil
    end
    if notified then
      notified = notified - t
    end
    redis.call('HSET', meta, 'bh', ARGV[2], 'bl', ARGV[3])
    redis.call('HDEL', meta, 'shift')
    if shift then
      redis.call('HSET', meta, 'shift', num(shift))
    end
    sent, t = sent - t, 0
  end
else
  redis.call('HSET', meta, 'bh', ARGV[2], 'bl', ARGV[3])
end

local cut = t - w
local n, oldest = 0, nil
if shift then
  if cut >= 0 then
    redis.call('UNLINK', old)
    redis.call('HDEL', meta, 'shift')
  else
    n = redis.call('ZCOUNT', old, '(' .. num(cut + shift), '+inf')
    if n > 0 then
      oldest = tonumber(redis.call('ZRANGE', old, '(' .. num(cut + shift), '+inf', 'BYSCORE', 'LIMIT', 0, 1, 'WITHSCORES')[2]) - shift
    end
  end
end
if limit <= chunk then
  redis.call('ZREMRANGEBYSCORE', log, '-inf', num(cut))
  n = n + redis.call('ZCARD', log)
else
  local stale = redis.call('ZCOUNT', log, '-inf', num(cut))
  if stale > 0 then
    redis.call('ZREMRANGEBYRANK', log, 0, math.min(stale, chunk) - 1)
  end
  n = n + redis.call('ZCOUNT', log, '(' .. num(cut), '+inf')
end

local allowed = n < limit
if allowed then
  redis.call('ZADD', log, num(t), ARGV[6])
  n = n + 1
end
local remaining = limit - n
local retry = 0
if remaining == 0 then
  if not oldest then
    oldest = tonumber(redis.call('ZRANGE', log, '(' .. num(cut), '+inf', 'BYSCORE', 'LIMIT', 0, 1, 'WITHSCORES')[2])
  end
  retry = oldest + w - t
end

local notify = 0
if not allowed and s[5] ~= '1' and ((not notified) or t - notified >= tonumber(ARGV[8])) then
  notify = 1
  notified = t
end
if notified then
  redis.call('HSET', meta, 'latest', num(t), 'denied', allowed and '0' or '1', 'notified', num(notified))
else
  redis.call('HSET', meta, 'latest', num(t), 'denied', allowed and '0' or '1')
end
redis.call('PEXPIRE', log, ARGV[7])
redis.call('PEXPIRE', meta, ARGV[7])
local untilFromSent = -1
if not allowed and t - sent < w then
  untilFromSent = t + retry - sent
end
return {allowed and 1 or 0, remaining, retry, notify, untilFromSent}
