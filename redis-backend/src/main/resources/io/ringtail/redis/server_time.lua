-- The Redis server's clock: {seconds, microseconds}, as strings.
local t = redis.call('TIME')
return {t[1], t[2]}
