-- The pets' version, shared by every instance through the limiter's Redis (shared-version.ts,
-- server/store/pet-cache.ts): a hash with `v`, moved on by every create, and `e`, moved on by every
-- reset. `e` starts from Redis's clock the first time the hash is used, so that a Redis that lost
-- its data (a restart without persistence) never hands out an epoch an instance already cached pets under.
local function petsVersion(key)
  local found = redis.call('HMGET', key, 'v', 'e')
  if not found[2] then
    local now = redis.call('TIME')
    local epoch = tonumber(now[1]) * 1000000 + tonumber(now[2])
    redis.call('HSET', key, 'v', 0, 'e', epoch)
    return 0, epoch
  end
  return tonumber(found[1]), tonumber(found[2])
end
