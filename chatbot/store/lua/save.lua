-- Compare-and-set a document, schedule it and mark the update that made it handled.
-- KEYS: document, its deadline index, the old counter key, the fields beside the document;
--   optionally the set of handled updates, then the hash of claims and their expiries.
-- ARGV: expected version, data, ttl seconds or '' (persist), deadline or '' (unschedule),
--   member, seconds the counter outlives the document, the index's time to live; with the
--   set: the update, the set's ttl, how many ids it keeps.
-- Announces the new version on the document's key (PUBLISH, for pages that watch it).
-- Returns the new version, or 0 when the expected version is stale.
local version = current_version(KEYS[1])
if version ~= ARGV[1] then return 0 end
if version == '0' then clear_fields(KEYS[4], 0) end
local new = next_version(KEYS[4], KEYS[3], tonumber(version))
local value = tostring(new) .. ':' .. ARGV[2]
if ARGV[3] == '' then
  redis.call('SET', KEYS[1], value)
  redis.call('PERSIST', KEYS[4])
else
  redis.call('SET', KEYS[1], value, 'EX', ARGV[3])
  redis.call('EXPIRE', KEYS[4], tonumber(ARGV[3]) + tonumber(ARGV[6]))
end
if ARGV[4] == '' then
  redis.call('ZREM', KEYS[2], ARGV[5])
else
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
end
keep_index(KEYS[2], ARGV[7])
if KEYS[5] then mark_seen(KEYS[5], ARGV[8], ARGV[9], ARGV[10]) end
if KEYS[6] then release(KEYS[6], KEYS[7], ARGV[8]) end
redis.call('PUBLISH', KEYS[1], new)
return new
