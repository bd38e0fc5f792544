-- Atomic limiter decisions for several requests at once (the requests of one event-loop turn of
-- one instance, coalesced into one round trip), each over one or more partitions taken in order (an
-- address probe, then a key): the first partition that refuses ends that request's chain, and its
-- later partitions are not touched. Requests are decided one after the other, exactly as if each
-- had made its own call in that order. Redis holds every expiry (PEXPIRE/PTTL), so a decision never
-- depends on the clocks of the instances that share this Redis.
--
-- ARGV[1]  number of requests
-- ARGV[2]  1: a passenger rides (passenger.ts): `passenger(KEYS[1])`, defined by the Lua the counters
--          prepend to this script, runs first and its table is returned first; 0: none (nor defined)
-- then, per request: number of partitions, then per partition:
--   ARGV   cost (1 counts the request, 0 only asks whether one more would be admitted),
--          ban threshold, ban period ms, ban duration ms (threshold 0: never ban),
--          number of windows n, then limit and window ms for each window
--   KEYS   ban flag, refusal counter, then one counter per window
--
-- Returns the passenger's table when one rides, then per request the number of partitions decided and,
-- per partition decided: outcome (0 admitted, 1 refused, 2 banned), ban ms left, then used and
-- ms-until-reset for each window. A refused or banned request never touches a window counter, so a
-- 429 uses no quota in any window.
--
-- Bans follow the rule stated in ban.ts (the memory counters apply the same one); ban.test.ts runs
-- this script and the memory counters through the same cases (ban-cases.ts).

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
