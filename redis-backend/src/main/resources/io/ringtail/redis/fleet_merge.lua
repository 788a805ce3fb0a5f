-- Commits one merge of a fleet histogram window's group, if no other merge was committed since
-- the merger read the group (compare-and-set on the stamp). Every key is under the group's tag.
-- KEYS[1] stamp, KEYS[2] table, KEYS[3] head, KEYS[4] inbox, KEYS[5] lease, KEYS[6] summary,
-- KEYS[7..] merged buckets. ARGV[1] the stamp read ('' for none), ARGV[2] the new stamp, ARGV[3]
-- the merger's lease token, ARGV[4] TTL of stamp, table, head and summary (ms), ARGV[5] the lease's
-- TTL (ms), ARGV[6] table, ARGV[7] head, ARGV[8] summary ('' to leave it), ARGV[9] n,
-- ARGV[10 .. 9+n] the inbox fields merged (or found duplicate), then per merged bucket its bytes
-- and its TTL (ms).
-- Returns 0 if another merge came first (nothing written), 1 if committed, 2 if committed and the
-- lease (still the merger's) renewed. O(n + buckets); the bytes are stored, never parsed.
local stamp = redis.call('GET', KEYS[1]) or ''
if stamp ~= ARGV[1] then
  return 0
end
local ttl = ARGV[4]
redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
redis.call('SET', KEYS[2], ARGV[6], 'PX', ttl)
redis.call('SET', KEYS[3], ARGV[7], 'PX', ttl)
if ARGV[8] ~= '' then
  redis.call('SET', KEYS[6], ARGV[8], 'PX', ttl)
end
local n = tonumber(ARGV[9])
for i = 10, 9 + n, 500 do
  redis.call('HDEL', KEYS[4], unpack(ARGV, i, math.min(i + 499, 9 + n)))
end
local a = 10 + n
for k = 7, #KEYS do
  redis.call('SET', KEYS[k], ARGV[a], 'PX', ARGV[a + 1])
  a = a + 2
end
if redis.call('GET', KEYS[5]) == ARGV[3] then
  redis.call('PEXPIRE', KEYS[5], ARGV[5])
  return 2
end
return 1
