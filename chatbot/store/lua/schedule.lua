-- Schedule a member in a deadline index, or unschedule it.
-- KEYS: the index. ARGV: member, deadline or '' (unschedule), the index's time to live.
if ARGV[2] == '' then
  redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
end
keep_index(KEYS[1], ARGV[3])
