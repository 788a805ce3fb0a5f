-- Reads one bucket of a histogram window.
-- KEYS: 1 counts, 2 meta (see histogram_common.lua).
-- Returns: {counts JSON array or '', then the meta hash as field, value, field, value, ...}.
local reply = redis.call('HGETALL', KEYS[2])
table.insert(reply, 1, redis.call('GET', KEYS[1]) or '')
return reply
