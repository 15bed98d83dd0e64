-- Set a field beside a document (nothing while there is none), keeping its time to live.
-- KEYS: the document, the fields beside it.
-- ARGV: the field, its value, '1' to replace a value it has, ms the hash outlives the document.
-- Returns the value the field had.
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return false end
local before = redis.call('HGET', KEYS[2], ARGV[1])
if before and ARGV[3] ~= '1' then return before end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
if ttl < 0 then
  redis.call('PERSIST', KEYS[2])
elseif redis.call('PTTL', KEYS[2]) < ttl + tonumber(ARGV[4]) then
  redis.call('PEXPIRE', KEYS[2], ttl + tonumber(ARGV[4]))
end
return before
