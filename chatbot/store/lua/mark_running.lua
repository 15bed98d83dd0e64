-- Count a document as a running game once, however often marked (delete uncounts it).
-- KEYS: the shard's running games (member -> game) and their counts by game.
-- ARGV: the member, its game, the hashes' time to live.
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
end
keep_index(KEYS[1], ARGV[3])
keep_index(KEYS[2], ARGV[3])
