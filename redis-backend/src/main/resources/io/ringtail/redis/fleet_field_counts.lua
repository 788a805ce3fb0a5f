-- The field count of each of a keyed histogram window's bucket hashes (KEYS, one key's buckets,
-- all under its hash tag): one call instead of one HLEN per bucket. O(1) per key.
local out = {}
for i = 1, #KEYS do
  out[i] = redis.call('HLEN', KEYS[i])
end
return out
