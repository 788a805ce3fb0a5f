-- Prelude of the cheap decision scripts: the call's deadline and wrap-safe time offsets.
-- A time arrives as two integers, the unsigned high and low 32 bits of a signed 64-bit
-- nanosecond reading, so that differences are taken modulo 2^64 as Java's `a - b` is. Each key
-- keeps a base reading (halves 'bh', 'bl' in its meta hash); its times are offsets from the base
-- in nanoseconds, plain Lua numbers, exact while below 2^53. A key rebases once its offsets pass
-- REBASE; windows are at most 2^51 ns, so every offset a script compares stays below 2^53.
local TWO32 = 4294967296
local REBASE = 4503599627370496 -- 2^52

-- A whole number as Redis arguments need it (Lua's own tostring keeps only 14 digits).
local function num(x)
  return string.format('%.0f', x)
end

-- Whether the server's clock is past the caller's deadline (microseconds, '' for none): a call
-- that arrives after its caller stopped waiting must change nothing.
local function pastDeadline(deadline)
  if deadline == '' then
    return false
  end
  local clock = redis.call('TIME')
  return tonumber(clock[1]) * 1000000 + tonumber(clock[2]) > tonumber(deadline)
end

-- (ah, al) - (bh, bl) in nanoseconds, modulo 2^64 and signed; exact while its magnitude is below
-- 2^53, and at least 2^51 in magnitude whenever the true difference is.
local function offset(ah, al, bh, bl)
  local dh = (ah - bh) % TWO32
  if dh >= 2147483648 then
    dh = dh - TWO32
  end
  return dh * TWO32 + (al - bl)
end
