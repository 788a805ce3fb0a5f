-- Reads buckets of a histogram window (in a cluster, the buckets of one hash-tag group).
-- KEYS: counts and meta of each bucket (counts 1, meta 1, counts 2, meta 2, ...), then the
--       freshness hashes of their groups (see histogram_common.lua).
-- ARGV: 1 number of buckets.
-- Returns: per bucket its counts (MessagePack, '' if none), then n, s, lo, hi, r of its meta
--          (nil where absent); then each freshness hash as an array field, value, ...
local buckets = tonumber(ARGV[1])
local out = {}
for i = 1, 2 * buckets, 2 do
  out[#out + 1] = redis.call('GET', KEYS[i]) or ''
  local m = redis.call('HMGET', KEYS[i + 1], 'n', 's', 'lo', 'hi', 'r')
  for j = 1, 5 do
    out[#out + 1] = m[j]
  end
end
for i = 2 * buckets + 1, #KEYS do
  out[#out + 1] = redis.call('HGETALL', KEYS[i])
end
return out
