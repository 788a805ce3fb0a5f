-- Prelude of the decision scripts: exact unsigned 64-bit arithmetic on 20-digit zero-padded
-- decimal strings (times are nanoseconds + 2^63, amounts are units of 10^-scale), because Lua
-- numbers are doubles and lose integers above 2^53. Equal-width strings compare like numbers.
local E10 = 10000000000
local ZERO = '00000000000000000000'

local function split(s)
  return tonumber(string.sub(s, 1, 10)), tonumber(string.sub(s, 11, 20))
end

local function join(h, l)
  return string.format('%010d%010d', h, l)
end

local function dadd(a, b)
  local ah, al = split(a)
  local bh, bl = split(b)
  local h, l = ah + bh, al + bl
  if l >= E10 then
    l = l - E10
    h = h + 1
  end
  return join(h, l)
end

-- a - b for a >= b
local function dsub(a, b)
  local ah, al = split(a)
  local bh, bl = split(b)
  local h, l = ah - bh, al - bl
  if l < 0 then
    l = l + E10
    h = h - 1
  end
  return join(h, l)
end

local function pad(s)
  return string.rep('0', 20 - #s) .. s
end

-- a 20-digit string without leading zeros, for INCRBY and friends
local function plain(s)
  local t = string.gsub(s, '^0+', '')
  if t == '' then
    return '0'
  end
  return t
end

-- (exclusive lower lex bound of the window ending at t, cutoff) or ('-', nil) if t < W
local function windowOf(t, w)
  if t >= w then
    local cut = dsub(t, w)
    return '(' .. cut .. ';', cut
  end
  return '-', nil
end

-- the time left until an entry timed `at` leaves the window ending at t: at + W - t
local function leavesIn(at, t, w)
  return dsub(w, dsub(t, at))
end

-- cooldown check and bookkeeping for a listener notification at time t
local function shouldNotify(meta, t, cooldown)
  local last = redis.call('HGET', meta, 'notified')
  if (not last) or dsub(t, last) >= cooldown then
    redis.call('HSET', meta, 'notified', t)
    return 1
  end
  return 0
end
