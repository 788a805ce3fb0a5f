-- Bucketed rate limiter, one request, atomically (a function of the decision.lua library): the
-- admitted requests counted by sub-window of width g in a ring of 17 counters, whatever the limit.
-- KEYS: 1 state (decision.lua; extra: the start of the newest bucket, as time halves; head: its
--       slot): a ring of 17 counts (4 bytes each) by bucket, written back whole, with the header,
--       on every call. The header is kept in locals (no state table).
-- ARGV: 1 packed (ARGS: the fields of DecisionLayout.BUCKETED_RATE_LIMIT in Java,
--       DecisionLayoutTest checks the two agree): the deadline (server microseconds), the
--       time's halves, the window ns (at most 2^51), the bucket width g ns, the limit, the
--       listener cooldown ns; 2 ttl ms.
-- Replies (decision.lua's REPLY): allowed, notify, remaining, retry-after ns, and the ns from the
-- caller's time to the time denials last until (-1 if not denied or not expressible).
-- Evicts by the grid: a bucket is cleared when the grid's start passes it.
-- A bucket counts while any request it may hold is in the window: t - start < W + g - 1.
local N = 17
-- Past this offset from the grid's start a key starts a new grid at its decision's time.
local REALIGN = 2251799813685248 -- 2^51
local ARGS = '>dI4I4dddd'
local key = KEYS[1]
local deadline, th, tl, w, g, limit, cooldown = struct.unpack(ARGS, ARGV[1])
local late, second = pastDeadline(deadline)
if late then
  return LATE
end
-- the header as read (o: old), and the 17 counts, counts[i + 1] the bucket at slot i
local GRID = '>I4I4I4I4I4I4I4I4I4I4I4I4I4I4I4I4I4'
local s = readState(key, READ_LAST)
local known = #s > 0
local olh, oll, onh, onl, oflags, head, ocount, oring, oxh, oxl, refreshed
local counts
if known then
  olh, oll, onh, onl, oflags, head, ocount, oring, oxh, oxl, refreshed =
    struct.unpack(HEADER, s, 5)
  counts = {struct.unpack(GRID, s, HEADER_SIZE + 1)}
  counts[N + 1] = nil
else
  oflags, head, onh, onl = 0, 0, 0, 0
  counts = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
end
local notified = nil
local nh, nl = th, tl
local sent, t = 0, 0
if known then
  local sh, sl = oxh, oxl
  if oflags % 4 >= NOTIFIED then
    notified = offset(onh, onl, sh, sl)
  end
  sent = offset(th, tl, sh, sl)
  t = math.max(sent, offset(olh, oll, sh, sl))
  local steps = math.floor(t / g)
  if t >= REALIGN then
    -- idle for 2^51 ns or more (offsets this far may be inexact): the grid starts again at the
    -- decision's time
    counts = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
    head = 0
    nh, nl = decisionTime(th, tl, olh, oll)
    if notified then
      notified = notified - t
    end
    sent, t = offset(th, tl, nh, nl), 0
  elseif steps > 0 then
    if steps >= N then
      -- nothing counted is left: every bucket clears, and the grid stays where the key's first
      -- request laid it, so that decisions Redis does not see (denials a client answers itself)
      -- cannot move it
      counts = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
      head = 0
    else
      for _ = 1, steps do
        head = (head + 1) % N
        counts[head + 1] = 0
      end
    end
    local adv = steps * g
    nh, nl = plus(sh, sl, adv)
    sent, t = sent - adv, t - adv
    if notified then
      notified = notified - adv
    end
  else
    nh, nl = sh, sl
  end
end

if notified and notified < -REBASE then
  notified = nil
end
local reach = w + g - 1
local held = 0
for i = 0, N - 1 do
  if t + i * g < reach then
    held = held + counts[(head - i) % N + 1]
  end
end
local allowed = held < limit
if allowed then
  counts[head + 1] = counts[head + 1] + 1
  held = held + 1
end
local remaining = limit - held
local retry = 0
if remaining == 0 then
  local excess, freed = held - limit + 1, 0
  for i = N - 1, 0, -1 do
    if t + i * g < reach then
      freed = freed + counts[(head - i) % N + 1]
      if freed >= excess then
        retry = reach - i * g - t
        break
      end
    end
  end
end

local since = notified and t - notified or nil
local notify = notifies((not allowed) and oflags % 2 ~= DENIED, since, cooldown)
if notify then
  notified = t
end
-- the whole grid is written back (68 bytes) with the header: the shift may have cleared any bucket
local grid = struct.pack(GRID, unpack(counts, 1, N))
local lh, ll = plus(nh, nl, t)
local flags = allowed and 0 or DENIED
if notified then
  onh, onl = plus(nh, nl, notified)
  flags = flags + NOTIFIED
end
-- the header's count is 1: the grid is the ring's one entry
local header = struct.pack(HEADER, lh, ll, onh, onl, flags, head, 1, N, nh, nl,
    second)
if known and oring == N and second == refreshed then
  writeInPlace(key, header .. grid, nil, nil, N, 68)
else
  -- new, or its TTL to refresh: the whole string with its TTL, one call
  writeWhole(key, header .. grid, ARGV[2])
end
local untilFromSent = -1
if not allowed and t - sent < w then
  untilFromSent = t + retry - sent
end
return struct.pack(REPLY, allowed and 1 or 0, notify and 1 or 0, 0, remaining, retry,
    untilFromSent)
