-- Mark an update handled and release its claim; 1 if it was not in the set before, else 0.
-- KEYS: the set of handled updates; optionally the hash of claims and their expiries.
-- ARGV: the update, the set's ttl, how many ids it keeps.
local new = redis.call('ZSCORE', KEYS[1], ARGV[1]) == false
mark_seen(KEYS[1], ARGV[1], ARGV[2], ARGV[3])
if KEYS[2] then release(KEYS[2], KEYS[3], ARGV[1]) end
if new then return 1 end
return 0
