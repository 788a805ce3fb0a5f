-- Renews a fleet histogram window's merger lease if the caller still holds it.
-- KEYS[1] the lease; ARGV[1] the caller's token, ARGV[2] the TTL (ms).
-- Returns 1 if renewed, 0 if another process holds it or it expired. O(1).
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
