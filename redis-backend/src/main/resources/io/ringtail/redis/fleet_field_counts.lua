-- The version of each of a keyed histogram window's bucket hashes (KEYS, one key's buckets, all
-- under its hash tag): its field count plus the fields merged away (field '#r', see
-- fleet_compact.lua), which rises with every new delta and stays when fields are merged. One call
-- instead of two commands per bucket. O(1) per key.
local out = {}
for i = 1, #KEYS do
  out[i] = redis.call('HLEN', KEYS[i]) + tonumber(redis.call('HGET', KEYS[i], '#r') or '0')
end
return out
