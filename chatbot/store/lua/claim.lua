-- Claim an update for a process, unless it was handled or another process holds it, and read
-- a document in the same step.
-- KEYS: the set of handled updates, the hash of claims (update -> process), their expiries (a
--   sorted set by expiry in ms); optionally a document and the fields beside it.
-- ARGV: the update, the claiming process, the claim's time to live (ms).
-- Lapsed claims are removed, oldest first (at most 64 a call). Returns {document, 1 if
-- handled, the process holding the update or false (the claim is ours now), the fields}.
local doc, fields = false, {}
if KEYS[4] then
  doc = redis.call('GET', KEYS[4])
  fields = redis.call('HGETALL', KEYS[5])
end
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return {doc, 1, false, fields} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 64)
if #lapsed > 0 then
  redis.call('HDEL', KEYS[2], unpack(lapsed))
  redis.call('ZREM', KEYS[3], unpack(lapsed))
end
local holder = redis.call('HGET', KEYS[2], ARGV[1])
if holder and holder ~= ARGV[2] then return {doc, 0, holder, fields} end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return {doc, 0, false, fields}
