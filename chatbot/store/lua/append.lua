-- Append a tagged entry to a list, first removing the entries tagged `drop`.
-- KEYS: the list. ARGV: the entry as stored (its tag, a newline, the entry), the tag whose
--   entries go first ('': none), how many entries stay (the newest), its time to live.
if ARGV[2] ~= '' then
  local prefix = ARGV[2] .. '\n'
  for _, old in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
    if string.sub(old, 1, #prefix) == prefix then redis.call('LREM', KEYS[1], 0, old) end
  end
end
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[3]), -1)
redis.call('EXPIRE', KEYS[1], ARGV[4])
