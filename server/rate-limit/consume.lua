-- One atomic limiter decision. Redis holds every expiry (PEXPIRE/PTTL), so the decision never
-- depends on the clocks of the instances that share this Redis.
--
-- KEYS[1]      ban flag          (exists while the partition is banned)
-- KEYS[2]      refusal counter   (refused requests within the ban period)
-- KEYS[3..]    one counter per window, in the order of the window arguments
-- ARGV[1]      cost: 1 counts the request, 0 only asks whether one more would be admitted
-- ARGV[2..4]   ban threshold, ban period ms, ban duration ms (threshold 0: never ban)
-- ARGV[5..]    limit, window ms for each window
--
-- Returns { outcome, banMs, used1, resetMs1, used2, resetMs2, ... }
-- with outcome 0 admitted, 1 refused, 2 banned. A refused or banned request never touches a
-- window counter, so a 429 uses no quota in any window.

local cost = tonumber(ARGV[1])
local threshold = tonumber(ARGV[2])
local period = tonumber(ARGV[3])
local duration = tonumber(ARGV[4])
local windows = #KEYS - 2

local used = {}
local reset = {}
local refused = false
local needed = math.max(cost, 1)

for i = 1, windows do
  local key = KEYS[i + 2]
  local limit = tonumber(ARGV[3 + 2 * i])
  local length = tonumber(ARGV[4 + 2 * i])
  local count = tonumber(redis.call('GET', key) or '0')
  local ttl = redis.call('PTTL', key)
  if ttl == -1 then
    -- A counter without expiry would never reset; give it a full window.
    redis.call('PEXPIRE', key, length)
    ttl = length
  elseif ttl < 0 then
    count = 0
    ttl = length
  end
  used[i] = count
  reset[i] = ttl
  if count + needed > limit then refused = true end
end

local function answer(outcome, banMs)
  local out = { outcome, banMs }
  for i = 1, windows do
    out[#out + 1] = used[i]
    out[#out + 1] = reset[i]
  end
  return out
end

local banTtl = redis.call('PTTL', KEYS[1])
if banTtl > 0 then return answer(2, banTtl) end

if refused then
  if threshold > 0 then
    local refusals = redis.call('INCR', KEYS[2])
    if refusals == 1 then redis.call('PEXPIRE', KEYS[2], period) end
    if refusals >= threshold then
      redis.call('SET', KEYS[1], '1', 'PX', duration)
      redis.call('DEL', KEYS[2])
      return answer(2, duration)
    end
  end
  return answer(1, 0)
end

if cost > 0 then
  for i = 1, windows do
    local key = KEYS[i + 2]
    local count = redis.call('INCRBY', key, cost)
    if count == cost then
      redis.call('PEXPIRE', key, tonumber(ARGV[4 + 2 * i]))
      reset[i] = tonumber(ARGV[4 + 2 * i])
    end
    used[i] = count
  end
end
return answer(0, 0)
