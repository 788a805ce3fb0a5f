-- Replaces fields of one bucket hash of a keyed histogram window with one merged field, if every
-- one of them is still there (another reader may have merged them first, or the bucket expired).
-- KEYS[1] the bucket; ARGV[1] the merged field's name, ARGV[2] its bytes, ARGV[3..] the fields it
-- replaces. Adds their number less one to field '#r', so that HLEN + '#r' (the bucket's version,
-- see fleet_field_counts.lua) stays as it was: the bucket's content has not changed.
-- Returns 1 if replaced, 0 if not. O(fields replaced).
local bucket = KEYS[1]
for i = 3, #ARGV do
  if redis.call('HEXISTS', bucket, ARGV[i]) == 0 then
    return 0
  end
end
for i = 3, #ARGV, 500 do
  redis.call('HDEL', bucket, unpack(ARGV, i, math.min(i + 499, #ARGV)))
end
redis.call('HSET', bucket, ARGV[1], ARGV[2])
redis.call('HINCRBY', bucket, '#r', #ARGV - 3)
return 1
