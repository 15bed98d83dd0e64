-- Hold a budget's places until a moment (a platform's "too many requests": retry after).
-- KEYS: the budget's state (hash). ARGV: until, seconds the state is kept.
local paused = tonumber(redis.call('HGET', KEYS[1], 'paused') or '0')
if tonumber(ARGV[1]) > paused then
  redis.call('HSET', KEYS[1], 'paused', ARGV[1])
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
return 1
