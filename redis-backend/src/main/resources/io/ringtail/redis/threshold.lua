-- Correlation threshold, one event, atomically (after the decision.lua prelude).
-- KEYS: 1 events ZSET (member: event id, score: its time as an offset from the key's base; equal
--       times order by id), 2 ids HASH (held event id -> 1), 3 meta HASH (bh, bl: base;
--       latest: offset; shift: this base's offset from the previous one, while the previous
--       base's events may be in the window; notified: offset; trimmed), 4 the events of the
--       previous base (read until they leave the window). All share one hash tag.
-- ARGV: 1 packed (ARGS: the fields of DecisionLayout.THRESHOLD in Java, DecisionLayoutTest
--       checks the two agree): the deadline (server microseconds), the event time's halves, the
--       window ns (at most 2^51), the threshold, the max events kept, the listener cooldown ns,
--       the eviction chunk; 2 ttl ms; 3 the event id.
-- Replies (decision.lua's REPLY, or LATE past the deadline): outcome (0 counted, 1 duplicate,
-- 2 expired), notify, count, and two flags in place of durations: crossed (0/1) and, for a
-- counted event, whether the key overflowed the cap for the first time (0/1).
-- Evicts expired events by the chunk per call (the rest on later calls: they never count) and
-- the oldest beyond the cap, by the chunk per call too (one beyond it, unless the cap shrank).
local ARGS = '>dI4I4ddddd'
local events, ids, meta, old = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local deadline, th, tl, w, threshold, cap, cooldown, chunk = struct.unpack(ARGS, ARGV[1])
local ttl, id = ARGV[2], ARGV[3]
if pastDeadline(deadline) then
  return LATE
end

local s = redis.call('HMGET', meta, 'bh', 'bl', 'latest', 'shift', 'notified')
local sent, latest, shift, notified = 0, nil, nil, nil
if s[1] then
  sent = offset(th, tl, tonumber(s[1]), tonumber(s[2]))
  latest, shift, notified = tonumber(s[3]), tonumber(s[4]), tonumber(s[5])
else
  -- a new key (or one written in an earlier layout, without a base): nothing to keep
  redis.call('UNLINK', events, ids, meta, old)
  redis.call('HSET', meta, 'bh', num(th), 'bl', num(tl))
end

-- the segments holding events: the previous base's (times are score - shift), then this one's
local function segments()
  local segs = {}
  if shift then
    segs[1] = {key = old, shift = shift}
  end
  segs[#segs + 1] = {key = events, shift = 0}
  return segs
end

-- events timed after cut
local function countAfter(cut)
  local n = 0
  for _, g in ipairs(segments()) do
    n = n + redis.call('ZCOUNT', g.key, '(' .. num(cut + g.shift), '+inf')
  end
  return n
end

local before = 0
if latest then
  before = countAfter(latest - w)
  if latest - sent >= w then
    return struct.pack(REPLY, 2, 0, 0, math.min(before, cap), 0, 0)
  end
end
local t = sent
if latest and latest > sent then
  t = latest
end
if redis.call('HGET', ids, id) then
  for _, g in ipairs(segments()) do
    local score = redis.call('ZSCORE', g.key, id)
    if score then
      if tonumber(score) - g.shift > t - w then
        return struct.pack(REPLY, 1, 0, 0, math.min(before, cap), 0, 0)
      end
      redis.call('ZREM', g.key, id)
    end
  end
  redis.call('HDEL', ids, id)
end

if t >= REBASE then
  -- t is this event's time (stored offsets stay below REBASE); it becomes the base, and the
  -- events move to the previous base's slot while some may still be in the window
  redis.call('UNLINK', old)
  shift = nil
  if t - latest < w and redis.call('ZCARD', events) > 0 then
    redis.call('RENAME', events, old)
    shift = t
  else
    redis.call('UNLINK', events, ids)
  end
  if notified then
    notified = notified - t
  end
  redis.call('HSET', meta, 'bh', num(th), 'bl', num(tl))
  redis.call('HDEL', meta, 'shift')
  if shift then
    redis.call('HSET', meta, 'shift', num(shift))
  end
  sent, t = sent - t, 0
end

local cut = t - w
local segs = segments()
local function forget(g, first, last)
  local members = redis.call('ZRANGE', g.key, first, last)
  if #members > 0 then
    redis.call('ZREM', g.key, unpack(members))
    redis.call('HDEL', ids, unpack(members))
  end
end
local stillHeld = 0
for _, g in ipairs(segs) do
  local stale = redis.call('ZCOUNT', g.key, '-inf', num(cut + g.shift))
  if stale > 0 then
    local k = math.min(stale, chunk)
    forget(g, 0, k - 1)
    stale = stale - k
  end
  g.first = stale
  g.n = redis.call('ZCARD', g.key) - stale
  stillHeld = stillHeld + g.n
end
if shift and segs[1].n + segs[1].first == 0 then
  -- the previous base's events have all left (its set is gone)
  redis.call('HDEL', meta, 'shift')
  table.remove(segs, 1)
  shift = nil
end
redis.call('ZADD', events, num(sent), id)
redis.call('HSET', ids, id, '1')
segs[#segs].n = segs[#segs].n + 1
local after = stillHeld + 1
local firstTrim = 0
if after > cap then
  -- drop the oldest held events (by time, then id) down to the cap, from whichever segment: at
  -- most a chunk per call, so a key filled under a larger cap comes down to a smaller one over
  -- later calls (meanwhile it holds more, finding more duplicates, and reports the cap)
  local drop = math.min(after - cap, chunk)
  for _ = 1, drop do
    local pick, pickTime, pickId = nil, nil, nil
    for _, g in ipairs(segs) do
      if g.n > 0 then
        local e = redis.call('ZRANGE', g.key, g.first, g.first, 'WITHSCORES')
        local at = tonumber(e[2]) - g.shift
        if (not pick) or at < pickTime or (at == pickTime and e[1] < pickId) then
          pick, pickTime, pickId = g, at, e[1]
        end
      end
    end
    forget(pick, pick.first, pick.first)
    pick.n = pick.n - 1
  end
  after = after - drop
  firstTrim = redis.call('HSETNX', meta, 'trimmed', '1')
end

local crossed = after >= threshold and stillHeld < threshold
local notify = notifies(crossed, notified and t - notified, cooldown)
if notify then
  notified = t
end
if notified then
  redis.call('HSET', meta, 'latest', num(t), 'notified', num(notified))
else
  redis.call('HSET', meta, 'latest', num(t))
end
redis.call('PEXPIRE', events, ttl)
redis.call('PEXPIRE', ids, ttl)
redis.call('PEXPIRE', meta, ttl)
if shift then
  redis.call('PEXPIRE', old, ttl)
end
return struct.pack(
  REPLY, 0, notify and 1 or 0, 0, math.min(after, cap), crossed and 1 or 0, firstTrim)
