-- Moves time forward by ARGV[1] ms for the given keys, the way Redis itself would: every expiry
-- comes that much closer, and whatever would have expired is deleted.
local ms = tonumber(ARGV[1])
local removed = 0
for _, key in ipairs(KEYS) do
  local ttl = redis.call('PTTL', key)
  if ttl > 0 then
    if ttl <= ms then
      redis.call('DEL', key)
      removed = removed + 1
    else
      redis.call('PEXPIRE', key, ttl - ms)
    end
  end
end
return removed
