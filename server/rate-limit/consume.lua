-- Atomic limiter decisions for one request, over one or more partitions taken in order (an
-- address probe, then a key): the first partition that refuses ends the chain, and the later
-- ones are not touched. Redis holds every expiry (PEXPIRE/PTTL), so a decision never depends on
-- the clocks of the instances that share this Redis.
--
-- ARGV[1]  number of partitions
-- then, per partition:
--   ARGV   cost (1 counts the request, 0 only asks whether one more would be admitted),
--          ban threshold, ban period ms, ban duration ms (threshold 0: never ban),
--          number of windows n, then limit and window ms for each window
--   KEYS   ban flag, refusal counter, then one counter per window
--
-- Returns, per partition decided: outcome (0 admitted, 1 refused, 2 banned), ban ms left, then
-- used and ms-until-reset for each window. A refused or banned request never touches a window
-- counter, so a 429 uses no quota in any window.

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
  return out, 2 + windows, 5 + 2 * windows
end

local reply = {}
local k, a = 1, 2
for _ = 1, tonumber(ARGV[1]) do
  local out, keysUsed, argsUsed = decide(k, a)
  for _, v in ipairs(out) do reply[#reply + 1] = v end
  if out[1] ~= 0 then break end
  k, a = k + keysUsed, a + argsUsed
end
return reply
