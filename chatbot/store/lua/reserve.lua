-- A place in a message budget shared by every process: at most `limit` messages in any
-- `period` seconds, spread out after a burst of `burst` (one every `spacing` seconds), none
-- before a pause (a platform's "too many requests") ends.
-- KEYS: the reserved moments (sorted set), the budget's state (hash: free, paused, n, p:<who>).
-- ARGV: now, earliest (seconds from now), limit, period, spacing, burst, who ("": none).
-- Returns {wait, ready, room, processes}: seconds until the place reserved, seconds until a
-- next one would not wait, places left in the period, processes that reserved in a minute.
local now, earliest = tonumber(ARGV[1]), tonumber(ARGV[2])
local limit, period = tonumber(ARGV[3]), tonumber(ARGV[4])
local spacing, burst, who = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
local moments, state = KEYS[1], KEYS[2]

local function edge()  -- when the place `limit` reservations back is a whole period old
  local count = redis.call('ZCARD', moments)
  if count < limit then return nil end
  local oldest = redis.call('ZRANGE', moments, count - limit, count - limit, 'WITHSCORES')
  return tonumber(oldest[2]) + period
end

local at = now + earliest
local paused = tonumber(redis.call('HGET', state, 'paused') or '0')
local free = tonumber(redis.call('HGET', state, 'free') or '')
if paused > at then at = paused end
if free and free - (burst - 1) * spacing > at then at = free - (burst - 1) * spacing end
local e = edge()
if e and e > at then at = e end

local n = redis.call('HINCRBY', state, 'n', 1)
redis.call('ZADD', moments, at, n)
redis.call('ZREMRANGEBYRANK', moments, 0, -(limit + 1))
if not free or at > free then free = at end
free = free + spacing
redis.call('HSET', state, 'free', string.format('%.6f', free))

local ready = now
if free - (burst - 1) * spacing > ready then ready = free - (burst - 1) * spacing end
e = edge()
if e and e > ready then ready = e end
if paused > ready then ready = paused end
local room = limit - redis.call('ZCOUNT', moments, '(' .. string.format('%.6f', now - period), '+inf')

local processes = 0
if who ~= '' then
  redis.call('HSET', state, 'p:' .. who, string.format('%.6f', now))
  local fields = redis.call('HGETALL', state)
  for i = 1, #fields, 2 do
    if string.sub(fields[i], 1, 2) == 'p:' then
      if tonumber(fields[i + 1]) > now - 60 then processes = processes + 1
      else redis.call('HDEL', state, fields[i]) end
    end
  end
end
local keep = math.ceil((period + 60) * 1000)
redis.call('PEXPIRE', moments, keep)
redis.call('PEXPIRE', state, keep)
return {string.format('%.6f', at - now), string.format('%.6f', ready - now), tostring(room),
        tostring(processes)}
