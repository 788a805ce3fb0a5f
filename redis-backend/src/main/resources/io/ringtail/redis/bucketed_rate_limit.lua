-- Bucketed rate limiter, one request, atomically (after the decision_clock.lua prelude): the
-- admitted requests counted by sub-window of width g in a ring of 17 counters, whatever the limit.
-- KEYS: 1 state HASH: nh, nl (start of the newest bucket, as time halves), head (its ring slot),
--       latest and notified (offsets from that start), denied, c0..c16 (counts by slot).
-- ARGV: 1 deadline (server microseconds, '' for none), 2 and 3 the time's halves, 4 window ns
--       (at most 2^51), 5 bucket width g ns, 6 limit, 7 ttl ms, 8 listener cooldown ns.
-- Returns: {-1} when past the deadline (nothing changed), else allowed (0/1), remaining,
--          retry-after ns, notify (0/1), and the ns from the caller's time to the time denials
--          last until (-1 if not denied or not expressible).
-- A bucket counts while any request it may hold is in the window: t - start < W + g - 1.
local h = KEYS[1]
if pastDeadline(ARGV[1]) then
  return {-1}
end
local N = 17
local th, tl = tonumber(ARGV[2]), tonumber(ARGV[3])
local w, g, limit = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local flat = redis.call('HGETALL', h)
local f = {}
for i = 1, #flat, 2 do
  f[flat[i]] = flat[i + 1]
end
local counts = {}
for i = 0, N - 1 do
  counts[i] = tonumber(f['c' .. i]) or 0
end
local head = tonumber(f.head) or 0
local notified = tonumber(f.notified)
local nh, nl = ARGV[2], ARGV[3]
local sent, t = 0, 0
local dirty = {}
if f.nh then
  sent = offset(th, tl, tonumber(f.nh), tonumber(f.nl))
  t = math.max(sent, tonumber(f.latest))
  local steps = math.floor(t / g)
  if steps >= N then
    -- nothing counted is left: the grid starts again at this time
    for i = 0, N - 1 do
      if counts[i] ~= 0 then
        counts[i] = 0
        dirty[i] = true
      end
    end
    head = 0
    if notified then
      notified = notified - t
    end
    sent, t = 0, 0
  elseif steps > 0 then
    for i = 1, steps do
      head = (head + 1) % N
      counts[head] = 0
      dirty[head] = true
    end
    local adv = steps * g
    local low = tonumber(f.nl) + adv
    nl = num(low % TWO32)
    nh = num((tonumber(f.nh) + math.floor(low / TWO32)) % TWO32)
    sent, t = sent - adv, t - adv
    if notified then
      notified = notified - adv
    end
  else
    nh, nl = f.nh, f.nl
  end
end

if notified and notified < -REBASE then
  notified = nil
end
local reach = w + g - 1
local held = 0
for i = 0, N - 1 do
  if t + i * g < reach then
    held = held + counts[(head - i) % N]
  end
end
local allowed = held < limit
if allowed then
  counts[head] = counts[head] + 1
  dirty[head] = true
  held = held + 1
end
local remaining = limit - held
local retry = 0
if remaining == 0 then
  local excess, freed = held - limit + 1, 0
  for i = N - 1, 0, -1 do
    if t + i * g < reach then
      freed = freed + counts[(head - i) % N]
      if freed >= excess then
        retry = reach - i * g - t
        break
      end
    end
  end
end

local notify = 0
if (not allowed) and f.denied ~= '1' and ((not notified) or t - notified >= tonumber(ARGV[8])) then
  notify = 1
  notified = t
end
local args = {'nh', nh, 'nl', nl, 'head', head, 'latest', num(t), 'denied', allowed and '0' or '1'}
if notified then
  args[#args + 1] = 'notified'
  args[#args + 1] = num(notified)
end
for i, _ in pairs(dirty) do
  args[#args + 1] = 'c' .. i
  args[#args + 1] = counts[i]
end
redis.call('HSET', h, unpack(args))
redis.call('PEXPIRE', h, ARGV[7])
local untilFromSent = -1
if not allowed and t - sent < w then
  untilFromSent = t + retry - sent
end
return {allowed and 1 or 0, remaining, retry, notify, untilFromSent}
