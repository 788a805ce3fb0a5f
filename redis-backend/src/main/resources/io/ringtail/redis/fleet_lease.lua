-- Renews a fleet histogram window's merger lease if the caller still holds it, or with a TTL of 0
-- gives it up (deletes it), so that another process can take it at once.
-- KEYS[1] the lease; ARGV[1] the caller's token, ARGV[2] the TTL (ms), 0 to give it up.
-- Returns 1 if renewed or given up, 0 if another process holds it or it expired. O(1).
if redis.call('GET', KEYS[1]) == ARGV[1] then
  if ARGV[2] == '0' then
    redis.call('DEL', KEYS[1])
  else
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
  end
  return 1
end
return 0
