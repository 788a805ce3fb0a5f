-- Sets a fleet histogram window's group summary, written again by the group's merger though
-- nothing was merged (a bucket closed), if no merge was committed since the merger read the group's
-- stamp (compare-and-set, as a merge's commit). Every key is under the group's tag.
-- KEYS[1] stamp, KEYS[2] summary, KEYS[3] lease. ARGV[1] the stamp read ('' for none), ARGV[2] the
-- summary, ARGV[3] its TTL (ms), ARGV[4] the merger's lease token, ARGV[5] the lease's TTL (ms).
-- Returns 0 if a merge came first (nothing written), 1 if set, 2 if set and the lease (still the
-- merger's) renewed. O(1); the bytes are stored, never parsed.
local stamp = redis.call('GET', KEYS[1]) or ''
if stamp ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
if redis.call('GET', KEYS[3]) == ARGV[4] then
  redis.call('PEXPIRE', KEYS[3], ARGV[5])
  return 2
end
return 1
