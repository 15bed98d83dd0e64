-- Write and delete several documents of one owner, and prepend entries to lists, at once.
-- KEYS: per document its key, its old counter key and the fields beside it (3n keys), the
--   deadline index, the running games' hashes (member -> game, game -> count), the lists.
-- ARGV: n, the number of lists, seconds a counter outlives its document; per document its
--   expected version, 'w' (write) or 'd' (delete), data, ttl or '' (persist), member; per
--   list an entry, how many entries it keeps, its ttl or '' (keeps its expiry).
-- Each document's new version (0: deleted) is announced on its key (PUBLISH).
-- Every version is checked before anything is written. Returns {1, new versions...} (0 for a
-- delete), or {0} when one is stale.
local n, m, keep = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local versions = {}
for i = 1, n do
  local version = current_version(KEYS[3 * i - 2])
  if version ~= ARGV[4 + 5 * (i - 1)] then return {0} end
  versions[i] = tonumber(version)
end
local out = {1}
local index = KEYS[3 * n + 1]
for i = 1, n do
  local a = 4 + 5 * (i - 1)
  local doc, counter, fields = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  redis.call('ZREM', index, ARGV[a + 4])
  if ARGV[a + 1] == 'd' or versions[i] == 0 then clear_fields(fields, versions[i]) end
  if ARGV[a + 1] == 'd' then
    redis.call('DEL', doc)
    uncount(KEYS[3 * n + 2], KEYS[3 * n + 3], ARGV[a + 4])
    if redis.call('EXISTS', fields) == 1 then redis.call('EXPIRE', fields, keep) end
    if redis.call('EXISTS', counter) == 1 then redis.call('EXPIRE', counter, keep) end
    out[i + 1] = 0
  else
    local new = next_version(fields, counter, versions[i])
    local value = tostring(new) .. ':' .. ARGV[a + 2]
    if ARGV[a + 3] == '' then
      redis.call('SET', doc, value)
      redis.call('PERSIST', fields)
    else
      redis.call('SET', doc, value, 'EX', ARGV[a + 3])
      redis.call('EXPIRE', fields, tonumber(ARGV[a + 3]) + keep)
    end
    out[i + 1] = new
  end
  redis.call('PUBLISH', doc, out[i + 1])
end
local b = 4 + 5 * n
for j = 1, m do
  local list = KEYS[3 * n + 3 + j]
  redis.call('LPUSH', list, ARGV[b + 3 * (j - 1)])
  redis.call('LTRIM', list, 0, tonumber(ARGV[b + 3 * (j - 1) + 1]) - 1)
  local ttl = ARGV[b + 3 * (j - 1) + 2]
  if ttl ~= '' then redis.call('EXPIRE', list, ttl) end
end
return out
