-- Delete a document whose version is the expected one ('-1': whatever it holds).
-- KEYS: document, its deadline index, the old counter key, the running games' hashes
--   (member -> game, game -> count), the fields beside the document.
-- ARGV: expected version, member, seconds the counter outlives the document.
-- Announces 0 on the document's key (PUBLISH: gone). Returns 1, or 0 when the expected version is stale.
local version = current_version(KEYS[1])
if ARGV[1] ~= '-1' and version ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
clear_fields(KEYS[6], tonumber(version) or 0)
redis.call('ZREM', KEYS[2], ARGV[2])
uncount(KEYS[4], KEYS[5], ARGV[2])
if redis.call('EXISTS', KEYS[6]) == 1 then redis.call('EXPIRE', KEYS[6], ARGV[3]) end
if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('EXPIRE', KEYS[3], ARGV[3]) end
redis.call('PUBLISH', KEYS[1], 0)
return 1
