-- Sum cap, one amount, atomically (after the decimal64.lua and decision_clock.lua preludes).
-- KEYS: 1 entries ZSET (score: the entry's time as an offset from the key's base; member
--       '<seq>:<cum>:<units>:<id>': a 16-digit per-key sequence that orders entries of equal
--       time, the key's cumulative units up to and including this entry modulo 10^20, and the
--       entry's units, both 20 digits), 2 the entries of the previous base (read until they
--       leave the window), 3 meta HASH (bh, bl, latest, shift as in rate_limit.lua; seq; cum:
--       the newest entry's cumulative units; denied; notified). All share one hash tag.
-- ARGV: 1 deadline (server microseconds, '' for none), 2 and 3 the time's halves, 4 window ns
--       (at most 2^51), 5 cap units (20 digits), 6 amount units (20 digits) or 'X' if it alone
--       exceeds the cap, 7 max entries kept, 8 entry id, 9 ttl ms, 10 listener cooldown ns,
--       11 most expired entries evicted per call.
-- Returns: {-1} when past the deadline (nothing changed), else allowed (0/1), total units
--          (20 digits), retry-after ns or -1 (none), frees-in ns, notify (0/1).
-- Work per call is bounded whatever the state: evictions by the chunk, the total from two
-- cumulative sums, the retry-after by a binary search over ranks (O(log^2 n)).
local entries, old, meta = KEYS[1], KEYS[2], KEYS[3]
if pastDeadline(ARGV[1]) then
  return {-1}
end
local th, tl = tonumber(ARGV[2]), tonumber(ARGV[3])
local w, cap, a = tonumber(ARGV[4]), ARGV[5], ARGV[6]
local chunk = tonumber(ARGV[11])

-- (x + y) and (x - y) modulo 10^20 on 20-digit strings
local function cadd(x, y)
  local xh, xl = split(x)
  local yh, yl = split(y)
  local h, l = xh + yh, xl + yl
  if l >= E10 then
    l, h = l - E10, h + 1
  end
  if h >= E10 then
    h = h - E10
  end
  return join(h, l)
end
local function csub(x, y)
  local xh, xl = split(x)
  local yh, yl = split(y)
  local h, l = xh - yh, xl - yl
  if l < 0 then
    l, h = l + E10, h - 1
  end
  if h < 0 then
    h = h + E10
  end
  return join(h, l)
end
local function cumOf(member)
  return string.sub(member, 18, 37)
end
local function unitsOf(member)
  return string.sub(member, 39, 58)
end

local s = redis.call('HMGET', meta, 'bh', 'bl', 'latest', 'shift', 'seq', 'cum', 'denied', 'notified')
local sent, t, shift, notified = 0, 0, nil, tonumber(s[8])
if s[1] then
  sent = offset(th, tl, tonumber(s[1]), tonumber(s[2]))
  t = math.max(sent, tonumber(s[3]))
  shift = tonumber(s[4])
  if t >= REBASE then
    redis.call('UNLINK', old)
    if t - tonumber(s[3]) < w then
      redis.call('RENAME', entries, old)
      shift = t
    else
      redis.call('UNLINK', entries)
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

-- the segments holding entries in time order: the previous base's, then this one's
local cut = t - w
local segs = {}
if shift then
  if cut >= 0 then
    redis.call('UNLINK', old)
    redis.call('HDEL', meta, 'shift')
  else
    segs[#segs + 1] = {key = old, shift = shift}
  end
end
segs[#segs + 1] = {key = entries, shift = 0}
local held = 0
local firstSeg = nil
for i = 1, #segs do
  local g = segs[i]
  local c = num(cut + g.shift)
  local stale = redis.call('ZCOUNT', g.key, '-inf', c)
  if stale > 0 then
    local k = math.min(stale, chunk)
    redis.call('ZREMRANGEBYRANK', g.key, 0, k - 1)
    stale = stale - k
  end
  g.first = stale
  g.n = redis.call('ZCARD', g.key) - stale
  held = held + g.n
  if g.n > 0 and not firstSeg then
    firstSeg = g
  end
end

local cum = s[6] or ZERO
local total, before, first = ZERO, cum, nil
if firstSeg then
  first = redis.call('ZRANGE', firstSeg.key, firstSeg.first, firstSeg.first, 'WITHSCORES')
  before = csub(cumOf(first[1]), unitsOf(first[1]))
  total = csub(cum, before)
end

local exceeds = a == 'X'
local allowed = (not exceeds) and dadd(total, a) <= cap
if allowed and a ~= ZERO then
  cum = cadd(cum, a)
  local last = segs[#segs]
  if held >= tonumber(ARGV[7]) then
    -- full: the amount joins the newest entry, which moves to this time (the cap stays exact)
    if last.n == 0 then
      last = segs[1]
    end
    local newest = redis.call('ZRANGE', last.key, -1, -1, 'WITHSCORES')
    local m = newest[1]
    redis.call('ZREM', last.key, m)
    redis.call('ZADD', last.key, num(t + last.shift), string.sub(m, 1, 17) .. cum .. ':'
        .. dadd(unitsOf(m), a) .. string.sub(m, 59))
    redis.call('HSET', meta, 'cum', cum)
    if held == 1 then
      firstSeg, first = last, {nil, num(t + last.shift)}
    end
  else
    local seq = (tonumber(s[5]) or 0) + 1
    redis.call('ZADD', entries, num(t), string.format('%016d', seq) .. ':' .. cum .. ':' .. a .. ':' .. ARGV[8])
    redis.call('HSET', meta, 'cum', cum, 'seq', num(seq))
    if held == 0 then
      firstSeg = segs[#segs]
      firstSeg.n = 1
      first = {nil, num(t)}
    end
  end
  total = dadd(total, a)
end

-- retry-after: when the oldest entries whose leaving makes room for `a` have left
local retry = 0
if exceeds then
  retry = -1
elseif not allowed then
  local need = dsub(dadd(total, a), cap)
  local function enough(g, rank)
    local e = redis.call('ZRANGE', g.key, rank, rank, 'WITHSCORES')
    return csub(cumOf(e[1]), before) >= need, e
  end
  for i = 1, #segs do
    local g = segs[i]
    if g.n > 0 then
      local lo, hi = g.first, g.first + g.n - 1
      local ok, e = enough(g, hi)
      if ok then
        while lo < hi do
          local mid = math.floor((lo + hi) / 2)
          local okMid, eMid = enough(g, mid)
          if okMid then
            hi, e = mid, eMid
          else
            lo = mid + 1
          end
        end
        retry = tonumber(e[2]) - g.shift + w - t
        break
      end
    end
  end
end

local frees = 0
if first then
  frees = tonumber(first[2]) - firstSeg.shift + w - t
end

local notify = 0
if (not allowed) and s[7] ~= '1' and ((not notified) or t - notified >= tonumber(ARGV[10])) then
  notify = 1
  notified = t
end
if notified then
  redis.call('HSET', meta, 'latest', num(t), 'denied', allowed and '0' or '1', 'notified', num(notified))
else
  redis.call('HSET', meta, 'latest', num(t), 'denied', allowed and '0' or '1')
end
redis.call('PEXPIRE', entries, ARGV[9])
redis.call('PEXPIRE', meta, ARGV[9])
return {allowed and 1 or 0, total, retry, frees, notify}
