-- After pets were committed (ARGV[1] 'create') or replaced (ARGV[1] 'reset'): moves the pets'
-- version (KEYS[1]) on, so that no instance serves a page or a pet cached before. Returns v, e.
local v, e = petsVersion(KEYS[1])
if ARGV[1] == 'reset' then e = redis.call('HINCRBY', KEYS[1], 'e', 1) end
v = redis.call('HINCRBY', KEYS[1], 'v', 1)
return { v, e }
