-- Prelude of the decisions: the call's deadline, 64-bit values as two 32-bit halves, a key's state
-- packed in one string, and the tail every decision ends with. The decisions on one string
-- (rate_limit, bucketed_rate_limit, sum_cap) are functions of a library made of this prelude and
-- their bodies (LuaLibrary), so these helpers are created once per load, not once per call;
-- threshold.lua runs after it as an EVALSHA script.
--
-- A decision function takes its numbers packed in one argument, ARGV[1] (each script gives its
-- struct format; one struct.unpack is cheaper than a tonumber per argument): whole numbers below
-- 2^53 as doubles ('d'), times and amounts as the unsigned high and low 32-bit halves of a Java
-- long ('I4I4'). The first is the call's deadline; ARGV[2] is the TTL in ms. Differences of
-- times are taken modulo 2^64 and signed, as Java's `a - b` is, so readings may wrap; they are
-- exact while below 2^53 in magnitude, which every window (at most 2^51 ns) keeps them.
local TWO32 = 4294967296
-- Scripts that keep times as offsets from a per-key base (threshold.lua) rebase past this.
local REBASE = 4503599627370496 -- 2^52

-- Whether the server's clock is past the caller's deadline (server microseconds): a call that
-- arrives after its caller stopped waiting must change nothing. Also the clock's second, for the
-- TTL refresh.
local function pastDeadline(deadline)
  local clock = redis.call('TIME')
  local second = tonumber(clock[1])
  return second * 1000000 + tonumber(clock[2]) > deadline, second
end

-- (ah, al) - (bh, bl), modulo 2^64 and signed; exact while its magnitude is below 2^53, and at
-- least 2^51 in magnitude whenever the true difference is.
local function offset(ah, al, bh, bl)
  local dh = (ah - bh) % TWO32
  if dh >= 2147483648 then
    dh = dh - TWO32
  end
  return dh * TWO32 + (al - bl)
end

-- (h, l) + n for 0 <= n < 2^53, modulo 2^64.
local function plus(h, l, n)
  local low = l + n
  return (h + math.floor(low / TWO32)) % TWO32, low % TWO32
end

-- (ah, al) + (bh, bl) modulo 2^64, as halves.
local function sum(ah, al, bh, bl)
  local low = al + bl
  return (ah + bh + math.floor(low / TWO32)) % TWO32, low % TWO32
end

-- (ah, al) - (bh, bl) modulo 2^64, as halves.
local function minus(ah, al, bh, bl)
  local h, l = ah - bh, al - bl
  if l < 0 then
    h, l = h - 1, l + TWO32
  end
  return h % TWO32, l
end

-- (ah, al) <= (bh, bl), unsigned.
local function atMost(ah, al, bh, bl)
  return ah < bh or (ah == bh and al <= bl)
end

-- A whole number as Redis arguments need it (Lua's own tostring keeps only 14 digits).
local function num(x)
  return string.format('%.0f', x)
end

-- A key's state, one string: a tag ('rtd1'), a header of eleven 32-bit fields, then a ring of
-- entries `width` bytes wide, `count` of them, the oldest at slot (head - count) mod ring. One
-- GETRANGE reads the first SMALL bytes (READ for a new capacity): the whole string while it is
-- smaller, else the header and the ring's start, the rest by range); SETRANGE writes back the changed entry and the header,
-- nothing else.
--   1, 2 latest: the latest decided time        6 head: the slot the next entry takes
--   3, 4 notified: the last notification's time  7 count: entries held (the sliding log drops
--                                                 those out of the window)
--   5 flags: DENIED, NOTIFIED                     8 ring: slots (the configured capacity)
--   9, 10 extra: a script's own value (the sum cap's running total, the grid's start)
--   11 refreshed: the server second of the last TTL refresh
local READ = 8192
local READ_LAST = '8191'
-- A ring whose whole string fits in SMALL bytes is read in the first GETRANGE and written back,
-- header to the changed entry, in one SETRANGE: a range given as a number costs Redis a
-- conversion, and a second call its own overhead (in a script, a 1 KB GETRANGE costs about what
-- a 48-byte one does; a GETRANGE with computed offsets about twice that).
local SMALL = 1024
local SMALL_LAST = '1023'
local HEADER = '>I4I4I4I4I4I4I4I4I4I4I4'
local TAG = 'rtd1'
local HEADER_SIZE = 48
local DENIED, NOTIFIED = 1, 2

-- The string at `key` up to byte `last` (READ_LAST or HEADER_LAST), '' if none; an error if it
-- is not a decision state.
local function readState(key, last)
  local s = redis.call('GETRANGE', key, '0', last)
  local n = #s
  if n > 0 and (n < HEADER_SIZE or string.sub(s, 1, 4) ~= TAG) then
    -- another program's string (or a layout this script does not know): refuse, change nothing
    error({err = 'WRONGTYPE ' .. key .. ' does not hold a decision state'})
  end
  return s
end

-- The time a decision is taken at: the caller's (sh, sl), or the latest decided time (lh, ll, nil
-- for a new key) if that is later, so that held entries stay in time order.
local function decisionTime(sh, sl, lh, ll)
  if lh and offset(sh, sl, lh, ll) < 0 then
    return lh, ll
  end
  return sh, sl
end

-- The start of a decision on the ring state at `key` at the caller's time (sh, sl): whether the
-- call is past its `deadline` (pastDeadline), else the clock's second, the state's first SMALL
-- bytes ('' for a new key; the whole string while it is shorter, whatever the capacity: a large
-- limit with few entries held costs what a small one does), the time the decision is taken at
-- (decisionTime) and the header's fields after the latest decided time (none for a new key).
local function begin(key, deadline, sh, sl)
  local late, second = pastDeadline(deadline)
  if late then
    return true
  end
  local s = readState(key, SMALL_LAST)
  if #s == 0 then
    return false, second, s, sh, sl
  end
  local lh, ll, nh, nl, flags, head, count, ring, xh, xl, refreshed = struct.unpack(HEADER, s, 5)
  local th, tl = decisionTime(sh, sl, lh, ll)
  return false, second, s, th, tl, nh, nl, flags, head, count, ring, xh, xl, refreshed
end

-- The state at `key` as a table (for a new key or a new capacity): `s`, its first SMALL bytes as
-- begin read them, when that is the whole string (a new key's is ''), else its first READ bytes.
local function load(key, entry, width, s)
  if #s >= SMALL then
    s = readState(key, READ_LAST)
  end
  if #s == 0 then
    return {key = key, s = s, whole = true, entry = entry, width = width, nh = 0, nl = 0,
      flags = 0, xh = 0, xl = 0, refreshed = 0}
  end
  local lh, ll, nh, nl, flags, head, count, ring, xh, xl, refreshed = struct.unpack(HEADER, s, 5)
  return {key = key, s = s, whole = #s < READ, entry = entry, width = width,
    lh = lh, ll = ll, nh = nh, nl = nl, flags = flags, head = head, count = count, ring = ring,
    xh = xh, xl = xl, refreshed = refreshed}
end

-- The fields of the entry at ring slot `slot`, from `s` (the string as read) if it holds it.
local function slotAt(key, s, entry, width, slot)
  local at = HEADER_SIZE + slot * width
  if at + width <= #s then
    return struct.unpack(entry, s, at + 1)
  end
  return struct.unpack(entry, redis.call('GETRANGE', key, at, at + width - 1))
end

-- The held entries, oldest first, as packed strings: the slots from the oldest to the ring's end
-- and from its start, read by range (only when a ring holding few entries is rewritten).
local function heldEntries(st)
  local out = {}
  local oldest = (st.head - st.count) % st.ring
  local first = math.min(st.count, st.ring - oldest)
  for _, run in ipairs({{oldest, first}, {0, st.count - first}}) do
    local from, n = run[1], run[2]
    if n > 0 then
      local at = HEADER_SIZE + from * st.width
      local bytes
      if st.whole or at + n * st.width <= #st.s then
        bytes = string.sub(st.s, at + 1, at + n * st.width)
      else
        bytes = redis.call('GETRANGE', st.key, at, at + n * st.width - 1)
      end
      for k = 0, n - 1 do
        out[#out + 1] = string.sub(bytes, k * st.width + 1, (k + 1) * st.width)
      end
    end
  end
  return out
end

-- Replaces the ring by `entries` (packed, oldest first) with `ring` slots: the key is written
-- whole (a new key, or a new capacity while few entries are held).
local function rewrite(st, entries, ring)
  st.s = string.rep('\0', HEADER_SIZE) .. table.concat(entries)
  st.whole, st.head, st.count, st.ring = true, #entries % ring, #entries, ring
end

-- A change of capacity never copies a large ring in one call. The ring's slots (`ring`) may
-- exceed the configured capacity: a smaller capacity applies to the decisions at once, and the
-- ring is rewritten at its size only once it holds at most SHRINK_BYTES of entries. A larger one
-- takes effect in place (O(1)) when the held entries do not wrap round the ring's end; when they
-- do, the wrapped part (at the ring's start) moves past the end, at most GROW_BYTES in one call,
-- else the ring waits until the entries held at the change have left (within a window), deciding
-- meanwhile with the slots it has (see each script).
local SHRINK_BYTES = 16384
local GROW_BYTES = 65536

-- Whether the ring (head, count, ring) of `width`-byte entries should be rewritten for a
-- `capacity`: a new key, or a smaller capacity once the held entries are few.
local function resizesWhole(s, count, ring, width, capacity)
  return #s == 0 or (ring > capacity and count * width <= SHRINK_BYTES)
end

-- Grows the ring at `key` (head, count, ring) of `width`-byte entries, read as `s`, to `capacity`
-- slots where that is cheap (see above); returns the head and ring to decide with (the ring
-- unchanged if the growth has to wait) and the string as it now is (read again if entries moved).
local function grow(key, s, head, count, ring, width, capacity)
  local oldest = (head - count) % ring
  if oldest + count <= ring then
    -- not wrapped: every entry keeps its slot
    return oldest + count, capacity, s
  end
  -- wrapped: the newest entries fill slots [0, head); they move to [ring, ring + head)
  if head * width <= GROW_BYTES then
    local moved = redis.call('GETRANGE', key, HEADER_SIZE, HEADER_SIZE + head * width - 1)
    redis.call('SETRANGE', key, HEADER_SIZE + ring * width, moved)
    -- the next slot: past the moved entries, or slot 0 (now free) if they reach the end
    return (ring + head) % capacity, capacity, readState(key, SMALL_LAST)
  end
  return head, ring, s
end

-- Writes the key whole: the tag, then `header` and what follows it; it expires in `ttl` ms.
local function writeWhole(key, header, ttl)
  redis.call('SET', key, TAG .. header, 'PX', ttl)
end

-- The largest ring written once more at its exact size when it fills: copying it costs the
-- server well under a millisecond, where a 3 MB ring's copy took tens of ms. A larger ring keeps
-- the room SETRANGE's growth left (at most its own size below 1 MB, at most 1 MB above).
local COMPACT_MAX = 262144

-- The entries of `s` (a key's string from its start) with the packed entry `packed` in `slot` if
-- given: what follows the header once the entry is written.
local function spliced(s, slot, packed, width)
  local body = string.sub(s, HEADER_SIZE + 1)
  if slot then
    local at = slot * width
    body = string.sub(body, 1, at) .. packed .. string.sub(body, at + width + 1)
  end
  return body
end

-- Writes `header` (and what follows it) and the packed entry `packed` into `slot` if given, in
-- place; PEXPIRE `ttl` if given (a whole string `s` that is SMALL is written whole instead, with
-- its TTL). With `s`, the string as read this call, a slot that starts
-- within it or at its end, and SMALL: one call from the header to the slot's end, the entries
-- between as read (a slot past `s`'s end means `s` is the whole string: it is shorter than SMALL).
-- That is a SETRANGE, or, for the slot that completes the ring, a SET (keeping the TTL) of the
-- whole string at its exact size.
local function writeInPlace(key, header, slot, packed, ring, width, ttl, s)
  if ttl and s and #s < SMALL and ((not slot) or HEADER_SIZE + slot * width <= #s) then
    -- `s` is the whole string: written whole with its new TTL, one call where SETRANGE and PEXPIRE
    -- take two
    writeWhole(key, header .. spliced(s, slot, packed, width), ttl)
    return
  end
  local filled = false
  local upTo = slot and HEADER_SIZE + (slot + 1) * width
  if s and upTo and upTo <= SMALL and upTo - width <= #s then
    local body = header .. string.sub(s, HEADER_SIZE + 1, upTo - width) .. packed
    if upTo > #s and slot == ring - 1 then
      redis.call('SET', key, TAG .. body, 'KEEPTTL')
    else
      redis.call('SETRANGE', key, '4', body)
    end
    slot = nil
    header = nil
  end
  if slot then
    local full = HEADER_SIZE + ring * width
    -- slots fill in order, so only the last one's first write can complete the string
    filled = slot == ring - 1 and full <= COMPACT_MAX and redis.call('STRLEN', key) < full
    redis.call('SETRANGE', key, HEADER_SIZE + slot * width, packed)
  end
  if header then
    redis.call('SETRANGE', key, '4', header)
  end
  if filled then
    -- the small ring just filled: SETRANGE grew the string greedily (up to twice its length), so
    -- it is written once more at its exact size
    redis.call('SET', key, redis.call('GET', key), 'KEEPTTL')
  end
  if ttl then
    redis.call('PEXPIRE', key, ttl)
  end
end

-- Writes a decision's header (fields in locals) and the packed entry `packed` into `slot` if
-- given: whole when the ring was rewritten into the state table `st` (a new key or a new
-- capacity), else in place. The key expires `ttl` ms after its last use, less under a second: the
-- TTL is refreshed once per server `second`, so it never runs out sooner than `ttl` - 1 s after a
-- use.
local function storeLocals(st, key, width, slot, packed, ttl, second, refreshed, s,
    lh, ll, nh, nl, flags, head, count, ring, xh, xl)
  local header = struct.pack(HEADER, lh, ll, nh, nl, flags, head, count, ring, xh, xl, second)
  if st then
    writeWhole(key, header .. spliced(st.s, slot, packed, width), ttl)
    return
  end
  writeInPlace(key, header, slot, packed, ring, width, second ~= refreshed and ttl, s)
end

-- The first held entry (0 the oldest; count if none) in the window (t - W, t] at (th, tl), its
-- age t - its time, its fields (none if none is) and, when the read already holds the next held
-- entry, that read and the entry's position in it, for the ring (head, count, ring) at `key`, read
-- as `s`. Entries
-- leave the window oldest first, so between two decisions a few leave: one GETRANGE of the
-- oldest entries (CHUNK_BYTES of them: 16 times, 8 sum-cap entries) finds it among them, and
-- only when all of them left does a binary search read O(log n) more.
local CHUNK_BYTES = 128
local function firstLive(key, s, entry, width, head, count, ring, th, tl, w)
  if count == 0 then
    return 0
  end
  local oldest = (head - count) % ring
  local n = math.min(count, CHUNK_BYTES / width, ring - oldest)
  local at = HEADER_SIZE + oldest * width
  local c, from = s, at + 1
  if at + n * width > #s then
    c, from = redis.call('GETRANGE', key, at, at + n * width - 1), 1
  end
  for k = 0, n - 1 do
    -- the entry's age, as offset() takes it (inline: this loop is every decision's hot path)
    local h, l, a, b = struct.unpack(entry, c, from + k * width)
    local dh = (th - h) % TWO32
    if dh >= 2147483648 then
      dh = dh - TWO32
    end
    local age = dh * TWO32 + (tl - l)
    if age < w then
      if k + 1 < n then
        return k, age, h, l, a, b, c, from + (k + 1) * width
      end
      return k, age, h, l, a, b
    end
  end
  local function age(k)
    local h, l = slotAt(key, s, entry, width, (oldest + k) % ring)
    return offset(th, tl, h, l)
  end
  if n == count or age(count - 1) >= w then
    return count
  end
  local lo, hi = n, count - 1
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if age(mid) < w then
      hi = mid
    else
      lo = mid + 1
    end
  end
  local h, l, a, b = slotAt(key, s, entry, width, (oldest + lo) % ring)
  return lo, offset(th, tl, h, l), h, l, a, b
end

-- Whether a decision tells the listener: an `event` (a first denial, a crossing) at least
-- `cooldown` ns after the last one told (`since`, nil if none was).
local function notifies(event, since, cooldown)
  return event and ((not since) or since >= cooldown)
end

-- The tail of the ring-state decisions at time (th, tl) on a header's flags and last notified
-- time: the denied flag and the notification (a denial after a decision that was not one).
-- Returns 1 to notify (else 0), the new flags and notified time.
local function noted(flags, nh, nl, allowed, th, tl, cooldown)
  local since = nil
  if flags % 4 >= NOTIFIED then
    since = offset(th, tl, nh, nl)
  end
  local notify = notifies((not allowed) and flags % 2 ~= DENIED, since, cooldown)
  flags = flags - flags % 4 + (allowed and 0 or DENIED)
  if notify then
    nh, nl = th, tl
  end
  if notify or since then
    flags = flags + NOTIFIED
  end
  return notify and 1 or 0, flags, nh, nl
end

-- The one reply of every decision (DecisionReply): verdict (1 allowed, 0 denied; the threshold's
-- outcome), notify (0/1), a count as halves (remaining, total units, events), and two more values
-- (durations in ns, -1 for none; the threshold's two flags), packed in one string (REPLY: cheaper
-- for Redis than an array).
local REPLY = '>BBI4I4dd'

-- A past-deadline call's reply: nothing changed.
local LATE = {-1}
