-- Limiter decisions for one event-loop turn's requests, one after the other as separate calls would
-- be; a request's partitions (an address probe, then a key) in order, its first refusal ending them.
-- Expiry lives in Redis, never in an instance's clock. Bans: the rule of ban.ts (ban-cases.ts).
-- KEYS, ARGV and the reply are laid out by RedisCounters#decide (redis-counters.ts): change both.

local function decide(k, a)
  local cost = tonumber(ARGV[a])
  local threshold = tonumber(ARGV[a + 1])
  local period = tonumber(ARGV[a + 2])
  local duration = tonumber(ARGV[a + 3])
  local windows = tonumber(ARGV[a + 4])
  local banKey, refusalKey = KEYS[k], KEYS[k + 1]

  local used, reset, limits, lengths = {}, {}, {}, {}
  local refused = false
  local needed = math.max(cost, 1)
  for i = 1, windows do
    local key = KEYS[k + 1 + i]
    limits[i] = tonumber(ARGV[a + 3 + 2 * i])
    lengths[i] = tonumber(ARGV[a + 4 + 2 * i])
    local count = tonumber(redis.call('GET', key) or '0')
    local ttl = redis.call('PTTL', key)
    if ttl == -1 then
      -- A counter without expiry would never reset; give it a full window.
      redis.call('PEXPIRE', key, lengths[i])
      ttl = lengths[i]
    elseif ttl < 0 then
      count = 0
      ttl = lengths[i]
    end
    used[i] = count
    reset[i] = ttl
    if count + needed > limits[i] then refused = true end
  end

  -- The ban rule (ban.ts): banned while the ban key lives, counting nothing; a refusal counts in a
  -- period opened by the first one (its expiry); the one reaching the threshold bans and clears the count.
  local outcome, banMs = 0, 0
  local banTtl = redis.call('PTTL', banKey)
  if banTtl > 0 then
    outcome, banMs = 2, banTtl
  elseif refused then
    outcome = 1
    if threshold > 0 then
      local refusals = redis.call('INCR', refusalKey)
      if refusals == 1 then redis.call('PEXPIRE', refusalKey, period) end
      if refusals >= threshold then
        redis.call('SET', banKey, '1', 'PX', duration)
        redis.call('DEL', refusalKey)
        outcome, banMs = 2, duration
      end
    end
  elseif cost > 0 then
    for i = 1, windows do
      local key = KEYS[k + 1 + i]
      local count = redis.call('INCRBY', key, cost)
      if count == cost then
        redis.call('PEXPIRE', key, lengths[i])
        reset[i] = lengths[i]
      end
      used[i] = count
    end
  end

  local out = { outcome, banMs }
  for i = 1, windows do
    out[#out + 1] = used[i]
    out[#out + 1] = reset[i]
  end
  return out
end

local reply = {}
local k, a = 1, 3
if tonumber(ARGV[2]) == 1 then
  reply[1] = passenger(KEYS[1])
  k = 2
end
for _ = 1, tonumber(ARGV[1]) do
  local partitions = tonumber(ARGV[a])
  a = a + 1
  local countAt = #reply + 1
  reply[countAt] = 0
  local decided, stopped = 0, false
  for _ = 1, partitions do
    local windows = tonumber(ARGV[a + 4])
    if not stopped then
      local out = decide(k, a)
      for _, v in ipairs(out) do reply[#reply + 1] = v end
      decided = decided + 1
      stopped = out[1] ~= 0
    end
    k, a = k + 2 + windows, a + 5 + 2 * windows
  end
  reply[countAt] = decided
end
return reply
