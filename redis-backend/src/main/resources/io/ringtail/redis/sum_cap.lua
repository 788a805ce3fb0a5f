-- Sum cap, one amount, atomically (a function of the decision.lua library).
-- KEYS: 1 state (decision.lua; extra: the key's running total of units, modulo 2^64): a ring of
--       at most `max entries` amounts in time order, each its time and the running total before
--       it (halves, 16 bytes), so the total in the window is a difference of two running totals.
--       Times are decided in order (an amount timed before the latest decided time counts at it).
-- ARGV: 1 deadline (server microseconds, '' for none), 2 and 3 the time's halves, 4 window ns
--       (at most 2^51), 5 and 6 the cap in units (halves), 7 and 8 the amount in units (halves;
--       7 is 'X' if it alone exceeds the cap), 9 max entries kept, 10 ttl ms,
--       11 listener cooldown ns.
-- Replies (decision.lua): allowed, notify, total units, retry-after ns or -1 (none), frees-in ns.
-- Evicts by the count: entries that left the window stop being held, and later amounts overwrite
-- their slots. A call reads the header and the oldest entries (firstLive); a denial's retry-after
-- is a binary search over the whole ring, read once.
local ENTRY = '>I4I4I4I4'
local st, second, sh, sl, w = opening(KEYS, ARGV, ENTRY, 16, HEADER_LAST)
if not st then
  return LATE
end
local ch, cl = tonumber(ARGV[5]), tonumber(ARGV[6])
local exceeds = ARGV[7] == 'X'
local ah, al = 0, 0
if not exceeds then
  ah, al = tonumber(ARGV[7]), tonumber(ARGV[8])
end
local max = tonumber(ARGV[9])

local function beforeOf(k)
  local _, _, h, l = entryOf(st, k)
  return h, l
end
-- the running total after the k-th entry: the next one's before, or the key's
local function afterOf(k)
  if k + 1 < st.count then
    return beforeOf(k + 1)
  end
  return st.xh, st.xl
end

local th, tl = decisionTime(st, sh, sl)
if not st.lh then
  rewrite(st, {}, max)
end
local lo, fh, fl, fbh, fbl =
  firstLive(st.key, st.s, st.entry, st.width, st.head, st.count, st.ring, th, tl, w)
if st.ring == max then
  -- the entries before the first in the window are out of every later one: no longer held
  st.count = st.count - lo
  lo = 0
else
  -- a new capacity: keep the newest entries; the oldest kept takes the running total before
  -- every one dropped in the window (they leave with it: later, never early)
  local held, kept = heldEntries(st), {}
  for k = math.max(lo + 1, #held - max + 1), #held do
    kept[#kept + 1] = held[k]
  end
  if #kept > 0 then
    local bh, bl = beforeOf(lo)
    local h, l = struct.unpack(ENTRY, kept[1])
    kept[1] = struct.pack(ENTRY, h, l, bh, bl)
  end
  rewrite(st, kept, max)
  lo = 0
end
local held = st.count
local bh, bl = st.xh, st.xl
if held > 0 then
  bh, bl = fbh, fbl
end
local toh, tol = minus(st.xh, st.xl, bh, bl)
-- the total with the amount: below 2^64, both being at most the cap
local nh, nl = sum(toh, tol, ah, al)
local allowed = (not exceeds) and atMost(nh, nl, ch, cl)

-- frees-in: when the oldest entry in the window leaves; retry-after: when the oldest entries
-- whose leaving makes room for the amount have left
local frees = 0
if held > 0 then
  frees = w - offset(th, tl, fh, fl)
end
local retry = 0
if exceeds then
  retry = -1
elseif not allowed then
  if not st.whole then
    -- the search reads entries anywhere in the ring: one read of it all
    st.s, st.whole = redis.call('GET', st.key), true
  end
  local needh, needl = minus(nh, nl, ch, cl)
  local function enough(k)
    local h, l = afterOf(k)
    local fh, fl = minus(h, l, bh, bl)
    return atMost(needh, needl, fh, fl)
  end
  local a, b = lo, st.count - 1
  while a < b do
    local mid = math.floor((a + b) / 2)
    if enough(mid) then
      b = mid
    else
      a = mid + 1
    end
  end
  retry = w - ageOf(st, th, tl, a)
end

local slot, packed = nil, nil
if allowed and (ah > 0 or al > 0) then
  local xh, xl = st.xh, st.xl
  st.xh, st.xl = sum(xh, xl, ah, al)
  if held >= st.ring then
    -- full: the amount joins the newest entry, which moves to this time (the cap stays exact)
    slot = (st.head - 1) % st.ring
    local _, _, h, l = slotOf(st, slot)
    packed = struct.pack(ENTRY, th, tl, h, l)
    if held == 1 then
      frees = w
    end
  else
    slot = st.head
    packed = struct.pack(ENTRY, th, tl, xh, xl)
    st.head = (st.head + 1) % st.ring
    st.count = math.min(st.count + 1, st.ring)
    if held == 0 then
      frees = w
    end
  end
end
local total = allowed and {nh, nl} or {toh, tol}
local notify = decided(st, allowed, th, tl, tonumber(ARGV[11]))
store(st, slot, packed, ARGV[10], second)
return reply(allowed and 1 or 0, notify, total[1], total[2], retry, frees)
