-- Mark an update handled and release its claim.
-- KEYS: the set of handled updates; optionally the hash of claims and their expiries.
-- ARGV: the update, the set's ttl, how many ids it keeps.
mark_seen(KEYS[1], ARGV[1], ARGV[2], ARGV[3])
if KEYS[2] then release(KEYS[2], KEYS[3], ARGV[1]) end
