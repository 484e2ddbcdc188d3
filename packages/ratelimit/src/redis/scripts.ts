// The Lua scripts of the Redis store: the memory store's operations (src/store.ts), one atomic
// script each, with the same arithmetic in the same order, so both stores grant the same takes.
// Each reads the time from Redis (TIME), so client clocks do not matter, unless the caller
// asks for its own (the `time: 'caller'` option). ARGV[1] is the mode and the caller's now
// ('r:<now>' or 'c:<now>'); absolute times cross in the caller's clock and are re-based here by
// their distance to its now. A level is one hash:
//   tat    theoretical arrival time (ms)          ctat   the TAT the configured rate alone would have
//   iv     interval in force (ms per token)       rate   rate in force (per second)
//   pause  paused until (ms)                      bcount, buntil  the vendor's budget: count left, until
// Every write refreshes the key's TTL past the last time it records, so no key outlives its use.
// Numbers go back as %.17g strings: exact doubles, as the memory store keeps them.

const PRELUDE = `
local caller = string.sub(ARGV[1], 1, 1) == 'c'
local cnow = tonumber(string.sub(ARGV[1], 3))
local now = cnow
if not caller then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
-- A time on the caller's clock on ours, and back.
local function at(t) if t == nil or caller then return t end return now + (t - cnow) end
local function back(t) if caller then return t end return cnow + (t - now) end
local EPSILON = 1e-6
local function f(x) return string.format('%.17g', x) end
local function load(key, rate)
  local v = redis.call('HMGET', key, 'tat', 'ctat', 'iv', 'rate', 'pause', 'bcount', 'buntil')
  if v[1] == false then
    return { fresh = true, tat = now, ctat = now, iv = 1000 / rate, rate = rate, pause = 0, bcount = 0, buntil = 0 }
  end
  return { tat = tonumber(v[1]), ctat = tonumber(v[2]), iv = tonumber(v[3]), rate = tonumber(v[4]),
    pause = tonumber(v[5]), bcount = tonumber(v[6]), buntil = tonumber(v[7]) }
end
-- A take changes only tat, ctat and the budget's count: it writes those alone on a known level.
local function save(key, s, ttl, takeOnly)
  if takeOnly and not s.fresh then
    redis.call('HSET', key, 'tat', f(s.tat), 'ctat', f(s.ctat), 'bcount', f(s.bcount))
  else
    redis.call('HSET', key, 'tat', f(s.tat), 'ctat', f(s.ctat), 'iv', f(s.iv), 'rate', f(s.rate),
      'pause', f(s.pause), 'bcount', f(s.bcount), 'buntil', f(s.buntil))
  end
  local last = math.max(s.tat, s.ctat, s.pause, s.buntil)
  redis.call('PEXPIRE', key, math.max(1, math.ceil(last - now + ttl)))
end
local function waitOf(s, burst, cost)
  local wait = math.max(s.tat, now) + cost * s.iv - burst * s.iv - now
  if wait < EPSILON then wait = 0 end
  local paused = s.pause - now
  if now < s.buntil and s.bcount < cost and s.buntil - now > wait then wait = s.buntil - now end
  return math.max(paused, wait)
end
`;

/**
 * take: KEYS = levels; ARGV = mode:now, cost, ttlMs, then per level: configured rate, burst.
 * Spends on every level or none. Returns the wait (ms), '0' when granted.
 */
export const TAKE = `${PRELUDE}
local cost, ttl = tonumber(ARGV[2]), tonumber(ARGV[3])
local states, wait = {}, 0
for i = 1, #KEYS do
  local rate, burst = tonumber(ARGV[2 + 2 * i]), tonumber(ARGV[3 + 2 * i])
  local s = load(KEYS[i], rate)
  states[i] = s
  wait = math.max(wait, waitOf(s, burst, cost))
end
if wait > 0 then return f(wait) end
for i = 1, #KEYS do
  local s, rate = states[i], tonumber(ARGV[2 + 2 * i])
  s.tat = math.max(s.tat, now) + cost * s.iv
  s.ctat = math.max(s.ctat, now) + (cost * 1000) / rate
  if now < s.buntil then s.bcount = s.bcount - cost end
  save(KEYS[i], s, ttl, true)
end
return '0'
`;

/** peek: KEYS = levels; ARGV = mode:now, cost, then per level: configured rate, burst. Spends nothing. */
export const PEEK = `${PRELUDE}
local cost = tonumber(ARGV[2])
local wait = 0
for i = 1, #KEYS do
  local rate, burst = tonumber(ARGV[1 + 2 * i]), tonumber(ARGV[2 + 2 * i])
  local w
  if redis.call('EXISTS', KEYS[i]) == 0 then
    w = (cost - burst) * (1000 / rate)
    if w < EPSILON then w = 0 end
  else
    w = waitOf(load(KEYS[i], rate), burst, cost)
  end
  if w > wait then wait = w end
end
return f(wait)
`;

/**
 * adjust: KEYS[1] = the level; ARGV = mode:now, ttlMs, configured rate, burst, then each ''
 * when absent: new rate, pause end, fill ('1'), budget count, budget end, token cap.
 */
export const ADJUST = `${PRELUDE}
local ttl, crate, burst = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local rate, pause, fill = tonumber(ARGV[5]), at(tonumber(ARGV[6])), ARGV[7] == '1'
local bcount, buntil, cap = tonumber(ARGV[8]), at(tonumber(ARGV[9])), tonumber(ARGV[10])
local s = load(KEYS[1], crate)
if rate ~= nil and rate ~= s.rate then
  local debt = math.max(0, s.tat - now) / s.iv
  s.rate = rate
  s.iv = 1000 / rate
  s.tat = now + debt * s.iv
end
if pause ~= nil and pause > s.pause then s.pause = pause end
if fill then
  local debt = (math.max(0, s.ctat - now) * crate) / 1000
  s.tat = math.min(s.tat, now + debt * s.iv)
end
if bcount ~= nil then
  s.bcount = bcount
  s.buntil = buntil
end
if cap ~= nil then
  local c = math.max(0, math.min(burst, cap))
  s.tat = math.max(s.tat, now + (burst - c) * s.iv)
end
save(KEYS[1], s, ttl)
return '0'
`;

/**
 * snapshot: KEYS[1] = the level; ARGV = mode:now, configured rate, burst. Returns tokens, rate
 * in force, and the pause's end on the caller's clock ('0' when not paused).
 */
export const SNAPSHOT = `${PRELUDE}
local crate, burst = tonumber(ARGV[2]), tonumber(ARGV[3])
if redis.call('EXISTS', KEYS[1]) == 0 then return { f(burst), f(crate), '0' } end
local s = load(KEYS[1], crate)
local paused = 0
if s.pause > now then paused = back(s.pause) end
return { f(burst - math.max(0, s.tat - now) / s.iv), f(s.rate), f(paused) }
`;
