-- Every entry of a list, oldest first, and the list removed. KEYS: the list.
local all = redis.call('LRANGE', KEYS[1], 0, -1)
redis.call('DEL', KEYS[1])
return all
