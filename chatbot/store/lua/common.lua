-- Shared by every script of the store (`script()` in chatbot/store/redis.py puts it first).
--
-- A document is one string value "<version>:<data>", so one GET returns both. The version
-- counter is the field VERSION_FIELD of the hash beside the document (its fields), which
-- outlives the document so that a version is never issued twice for a key.

local VERSION_FIELD = '#version'

-- The version of the document at `key`: '0' when absent, '?' for a value that is no document.
local function current_version(key)
  local head = redis.call('GETRANGE', key, 0, 20)
  if head == '' then return '0' end
  local colon = string.find(head, ':', 1, true)
  return colon and string.sub(head, 1, colon - 1) or '?'
end

-- `update` joins the handled set `key` as its newest (score: the server's time in ms, or one
-- more than the newest's); every id stays `ttl` seconds after its own mark (ids older go),
-- and of those the newest `keep` at most (a bound on memory, far above what a chat sees in
-- `ttl`); the set lives `ttl` seconds more.
local function mark_seen(key, update, ttl, keep)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if newest[2] and tonumber(newest[2]) >= now then now = tonumber(newest[2]) + 1 end
  redis.call('ZADD', key, now, update)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. (now - tonumber(ttl) * 1000))
  redis.call('ZREMRANGEBYRANK', key, 0, -(tonumber(keep) + 1))
  redis.call('EXPIRE', key, ttl)
end

-- The claim on `update` in the hash `held` (and its expiry in the sorted set `expiries`) goes.
local function release(held, expiries, update)
  redis.call('HDEL', held, update)
  redis.call('ZREM', expiries, update)
end

-- The index `key` expires in `ttl` seconds unless it lives longer already.
local function keep_index(key, ttl)
  if redis.call('TTL', key) < tonumber(ttl) then redis.call('EXPIRE', key, ttl) end
end

-- One more than any version issued for a document: its counter in the hash `fields`
-- (folding in `legacy`, the counter key an older version kept) and its version `current`.
local function next_version(fields, legacy, current)
  local new = redis.call('HINCRBY', fields, VERSION_FIELD, 1)
  local old = tonumber(redis.call('GET', legacy) or '0')
  if old > 0 then redis.call('DEL', legacy) end
  local floor = math.max(current, old)
  if new <= floor then
    new = floor + 1
    redis.call('HSET', fields, VERSION_FIELD, new)
  end
  return new
end

-- Every field of the hash `fields` but the version counter goes; the counter is at least
-- `floor` (the version of a document being deleted: issued, so never again).
local function clear_fields(fields, floor)
  local kept = math.max(tonumber(redis.call('HGET', fields, VERSION_FIELD) or '0'), floor)
  redis.call('DEL', fields)
  if kept > 0 then redis.call('HSET', fields, VERSION_FIELD, kept) end
end

-- A running game at `member` stops counting (`games`: member -> game; `counts`: game -> n).
local function uncount(games, counts, member)
  local game = redis.call('HGET', games, member)
  if game then
    redis.call('HDEL', games, member)
    if redis.call('HINCRBY', counts, game, -1) <= 0 then redis.call('HDEL', counts, game) end
  end
end
