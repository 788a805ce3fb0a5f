-- Sliding-log rate limiter, one request, atomically (a function of the decision.lua library).
-- KEYS: 1 state (decision.lua): a ring of `limit` slots (more after a smaller limit, fewer while a
--       larger one waits to grow: decision.lua's grow) holding the times of the admitted
--       requests still in the window as of the latest decided time, as time halves, 8 bytes each.
--       Times are decided in order (a request timed before the latest decided time counts at it),
--       so the ring is sorted and entries leave it oldest first. Each call reads the header and
--       the oldest entries (firstLive), not the whole ring.
-- ARGV: 1 packed (ARGS: the fields of DecisionLayout.RATE_LIMIT in Java, DecisionLayoutTest checks
--       the two agree): the deadline (server microseconds), the time's halves, the window ns (at
--       most 2^51), the limit, the listener cooldown ns; 2 ttl ms.
-- Replies (decision.lua's REPLY): allowed, notify, remaining, retry-after ns, and the ns from the
-- caller's time to the time denials last until (-1 if not denied or not expressible).
-- Evicts by the count: entries that left the window stop being held, and later admissions
-- overwrite their slots.
local TIME = '>I4I4'
local ARGS = '>dI4I4ddd'
local key = KEYS[1]
local deadline, sh, sl, w, limit, cooldown = struct.unpack(ARGS, ARGV[1])
-- the hot path keeps the header in locals; a new key or a ring rewritten at a smaller limit goes
-- through a state table
local late, second, s, th, tl, nh, nl, flags, head, count, ring, xh, xl, refreshed =
    begin(key, deadline, sh, sl)
if late then
  return LATE
end
local st = nil
if resizesWhole(s, count, ring, 8, limit) then
  st = load(key, TIME, 8, s)
  if not st.lh then
    rewrite(st, {}, limit)
  else
    -- a smaller limit, few entries held: every time still in the window is kept (a process with
    -- a larger limit counts them all), in a ring of at least the limit's size
    local lo = firstLive(key, st.s, TIME, 8, st.head, st.count, st.ring, th, tl, w)
    local held, kept = heldEntries(st), {}
    for k = lo + 1, #held do
      kept[#kept + 1] = held[k]
    end
    rewrite(st, kept, math.max(limit, #kept))
  end
  s, nh, nl, flags, head, count, ring, xh, xl, refreshed = st.s, st.nh, st.nl, st.flags, st.head,
      st.count, st.ring, st.xh, st.xl, st.refreshed
elseif ring < limit then
  head, ring, s = grow(key, s, head, count, ring, 8, limit)
end

local first, age = firstLive(key, s, TIME, 8, head, count, ring, th, tl, w)
-- the entries before the first in the window are out of every later one: no longer held
count = count - first
local inWindow = count
-- a ring still waiting to grow (see grow) admits only while it has a free slot
local room = math.min(limit, ring)
local allowed = inWindow < room
local retry = 0
if inWindow + 1 >= room then
  -- full once this request counts: room comes when the oldest in the window leaves, or, holding
  -- more than a smaller limit allows, when enough of the oldest have left
  local k = inWindow - room
  if k > 0 then
    local h, l = slotAt(key, s, TIME, 8, (head - count + k) % ring)
    age = offset(th, tl, h, l)
  end
  retry = w - (age or 0)
end
local slot, packed = nil, nil
if allowed then
  inWindow = inWindow + 1
  slot, packed = head, struct.pack(TIME, th, tl)
  head = (head + 1) % ring
  count = count + 1
end
local remaining = math.max(0, room - inWindow)
if remaining > 0 then
  retry = 0
end
local notify
notify, flags, nh, nl = noted(flags, nh, nl, allowed, th, tl, cooldown)
storeLocals(st, key, 8, slot, packed, ARGV[2], second, refreshed, s,
    th, tl, nh, nl, flags, head, count, ring, xh, xl)
local untilFromSent = -1
if not allowed then
  local ahead = offset(th, tl, sh, sl)
  if ahead < w then
    untilFromSent = ahead + retry
  end
end
return struct.pack(REPLY, allowed and 1 or 0, notify, 0, remaining, retry, untilFromSent)
