-- Adds what instances counted alone during an outage to the shared window counters (failover-counters.ts),
-- one window per key: KEYS[i] with ARGV seen, local, remaining ms at 3i-2 .. 3i. A counter below what the
-- instance last read from it (Redis came back without its data) is first raised to that; the instance's
-- own admissions are then added. A counter that had to be made, or that ends before the instance's window,
-- ends with that window. One that already holds it all is left as it is.
local changed = 0
for i, key in ipairs(KEYS) do
  local seen = tonumber(ARGV[3 * i - 2])
  local alone = tonumber(ARGV[3 * i - 1])
  local remaining = tonumber(ARGV[3 * i])
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
