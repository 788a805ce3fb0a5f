-- Sum cap, one amount, atomically (a function of the decision.lua library).
-- KEYS: 1 state (decision.lua; extra: the key's running total of units, modulo 2^64): a ring of
--       at most `max entries` amounts in time order, each its time and the running total before
--       it (halves, 16 bytes), so the total in the window is a difference of two running totals.
--       Times are decided in order (an amount timed before the latest decided time counts at it).
-- ARGV: 1 packed (ARGS: the fields of DecisionLayout.SUM_CAP in Java, DecisionLayoutTest checks
--       the two agree): the deadline (server microseconds), the time's halves, the window ns (at
--       most 2^51), the cap in units (halves), the amount in units (halves), 1 if the amount alone
--       exceeds the cap (else 0), the max entries kept, the listener cooldown ns; 2 ttl ms.
-- Replies (decision.lua's REPLY): allowed, notify, total units, retry-after ns or -1 (none),
-- frees-in ns.
-- Evicts by the count: entries that left the window stop being held, and later amounts overwrite
-- their slots. A call reads the header and the oldest entries (firstLive); a denial's retry-after
-- is a binary search over the held entries (a small ring read at once). The hot path keeps the
-- header in locals; a new key or a new capacity goes through a state table.
local ENTRY = '>I4I4I4I4'
local ARGS = '>dI4I4dI4I4I4I4ddd'
local key = KEYS[1]
local deadline, sh, sl, w, ch, cl, ah, al, exceeds, max, cooldown = struct.unpack(ARGS, ARGV[1])
exceeds = exceeds == 1
local late, second, s, th, tl, nh, nl, flags, head, count, ring, xh, xl, refreshed =
    begin(key, deadline, sh, sl)
if late then
  return LATE
end
local st = nil
if resizesWhole(s, count, ring, 16, max) then
  st = load(key, ENTRY, 16, s)
  if not st.lh then
    rewrite(st, {}, max)
  else
    -- a smaller capacity, few entries held: keep the newest entries in the window; the oldest
    -- kept takes the running total before every one dropped in the window (they leave with it:
    -- later, never early)
    local lo, _, _, _, fbh, fbl =
      firstLive(key, st.s, ENTRY, 16, st.head, st.count, st.ring, th, tl, w)
    local held, kept = heldEntries(st), {}
    for k = math.max(lo + 1, #held - max + 1), #held do
      kept[#kept + 1] = held[k]
    end
    if #kept > 0 then
      local h, l = struct.unpack(ENTRY, kept[1])
      kept[1] = struct.pack(ENTRY, h, l, fbh, fbl)
    end
    rewrite(st, kept, max)
  end
  s, nh, nl, flags, head, count, ring, xh, xl, refreshed =
    st.s, st.nh, st.nl, st.flags, st.head, st.count, st.ring, st.xh, st.xl, st.refreshed
elseif ring < max then
  head, ring, s = grow(key, s, head, count, ring, 16, max)
end

local lo, age, _, _, bh, bl, chunk, nextAt =
  firstLive(key, s, ENTRY, 16, head, count, ring, th, tl, w)
-- the entries before the first in the window are out of every later one: no longer held
count = count - lo
local held = count
if held == 0 then
  bh, bl = xh, xl
end
-- the total in the window, and with the amount: below 2^64, both being at most the cap
local toh, tol = minus(xh, xl, bh, bl)
local wh, wl = sum(toh, tol, ah, al)
local allowed = (not exceeds) and atMost(wh, wl, ch, cl)

-- frees-in: when the oldest entry in the window leaves; retry-after: when the oldest entries
-- whose leaving makes room for the amount have left
local frees = 0
if held > 0 then
  frees = w - age
end
local retry = 0
if exceeds then
  retry = -1
elseif not allowed then
  local needh, needl = minus(wh, wl, ch, cl)
  -- whether the k-th held entry (0 the oldest) and those before it free enough: the running
  -- total after it (the next one's before, or the key's) less the one before the oldest
  local function enough(k)
    local h, l = xh, xl
    local _
    if k == 0 and chunk then
      _, _, h, l = struct.unpack(ENTRY, chunk, nextAt)
    elseif k + 1 < count then
      _, _, h, l = slotAt(key, s, ENTRY, 16, (head - count + k + 1) % ring)
    end
    local fh, fl = minus(h, l, bh, bl)
    return atMost(needh, needl, fh, fl)
  end
  -- most often the oldest entry frees enough (its age is known); else a binary search over the
  -- held entries
  if enough(0) then
    retry = w - age
  else
    if not st and #s >= SMALL and HEADER_SIZE + ring * 16 <= READ then
      -- one read of a ring that is not held whole but is small (a ring rewritten in this call is
      -- whole in `s`, and not yet stored), else one read of an entry per step
      s = redis.call('GET', key)
    end
    local a, b = 1, count - 1
    while a < b do
      local mid = math.floor((a + b) / 2)
      if enough(mid) then
        b = mid
      else
        a = mid + 1
      end
    end
    local h, l = slotAt(key, s, ENTRY, 16, (head - count + a) % ring)
    retry = w - offset(th, tl, h, l)
  end
end

local slot, packed = nil, nil
if allowed and (ah > 0 or al > 0) then
  local oh, ol = xh, xl
  xh, xl = sum(xh, xl, ah, al)
  if held >= math.min(max, ring) then
    -- full (at the capacity, or at the slots of a ring that still waits to grow): the amount
    -- joins the newest entry, which moves to this time (the cap stays exact)
    slot = (head - 1) % ring
    local _, _, h, l = slotAt(key, s, ENTRY, 16, slot)
    packed = struct.pack(ENTRY, th, tl, h, l)
    if held == 1 then
      frees = w
    end
  else
    slot = head
    packed = struct.pack(ENTRY, th, tl, oh, ol)
    head = (head + 1) % ring
    count = count + 1
    if held == 0 then
      frees = w
    end
  end
end
local rh, rl = toh, tol
if allowed then
  rh, rl = wh, wl
end
local notify
notify, flags, nh, nl = noted(flags, nh, nl, allowed, th, tl, cooldown)
storeLocals(st, key, 16, slot, packed, ARGV[2], second, refreshed, s,
    th, tl, nh, nl, flags, head, count, ring, xh, xl)
return struct.pack(REPLY, allowed and 1 or 0, notify, rh, rl, retry, frees)
