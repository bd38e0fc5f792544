-- What instances knew while Redis was away, or after it lost its data, given back to the shared counters
-- (failover-counters.ts). ARGV[1] says what KEYS are:
-- 'windows': window counters, with ARGV seen, alone, remaining ms at 3i-1 .. 3i+1 for KEYS[i]. A counter
--   below what the instance last read from it (Redis came back without its data) is first raised to that;
--   what the instance admitted alone is then added. A counter that had to be made, or that ends before the
--   instance's window, ends with that window; one that already holds it all is left as it is.
-- 'bans': ban keys, with the ms left of each ban at ARGV[i + 1]; a ban missing or ending sooner is set to that.
local changed = 0
if ARGV[1] == 'bans' then
  for i, key in ipairs(KEYS) do
    local remaining = tonumber(ARGV[i + 1])
    if redis.call('PTTL', key) < remaining then
      redis.call('SET', key, '1', 'PX', remaining)
      changed = changed + 1
    end
  end
  return changed
end
for i, key in ipairs(KEYS) do
  local seen = tonumber(ARGV[3 * i - 1])
  local alone = tonumber(ARGV[3 * i])
  local remaining = tonumber(ARGV[3 * i + 1])
  local ttl = redis.call('PTTL', key)
  local count = 0
  if ttl ~= -2 then count = tonumber(redis.call('GET', key) or '0') end
  local wanted = math.max(count, seen) + alone
  if wanted > count then
    redis.call('INCRBY', key, wanted - count)
    if ttl < remaining then redis.call('PEXPIRE', key, remaining) end
    changed = changed + 1
  end
end
return changed
