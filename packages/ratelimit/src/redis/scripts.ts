// The Lua scripts of the Redis store. Each runs atomically on the server and reads the time
// from Redis (TIME), so client clocks do not matter. A level is one hash:
//   tat   theoretical arrival time (ms, Redis clock)      iv    interval in force (ms per token)
//   pause paused until (ms)                               qend  end of the vendor's quota window
//   qiv   interval the quota window asks for              thr   time of the last bare throttle
//   wmax  rate before that throttle (per second)          ctat  the TAT of the configured rate alone
// Every write refreshes the key's TTL, so no key outlives its use.

/** Shared prelude: the time, and the interval in force on a level now (quota window, CUBIC recovery). */
const PRELUDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local function num(x, d) local v = tonumber(x) if v == nil then return d end return v end
-- The interval in force: configured, or slower while a quota window or a recovery says so.
local function effective(key, civ, miniv, beta, scale)
  local st = redis.call('HMGET', key, 'tat', 'iv', 'pause', 'qend', 'qiv', 'thr', 'wmax', 'ctat')
  local tat = num(st[1], now)
  local iv = num(st[2], civ)
  local want = civ
  local qend = num(st[4], 0)
  if qend > now then want = math.max(want, num(st[5], civ))
  elseif qend > 0 then
    -- The vendor's window reset at qend: its quota is back, and so is our burst, as far as
    -- the configured rate allows after the takes so far (ctat), never beyond it.
    redis.call('HDEL', key, 'qend', 'qiv')
    local full = qend + math.max(0, num(st[8], 0) - qend) / civ * iv
    if tat > full then tat = full redis.call('HSET', key, 'tat', tostring(tat)) end
  end
  local thr = num(st[6], 0)
  if thr > 0 then
    local wmax = num(st[7], 1000 / civ)
    local k = ((wmax * (1 - beta)) / scale) ^ (1 / 3)
    local s = (now - thr) / 1000
    local rate = scale * (s - k) ^ 3 + wmax
    if s < k then rate = wmax - scale * (k - s) ^ 3 end
    if rate >= 1000 / civ then redis.call('HDEL', key, 'thr', 'wmax') else want = math.max(want, math.min(miniv, 1000 / math.max(rate, 1e-9))) end
  end
  if want ~= iv then
    -- Keep the debt in tokens, not in time, across a change of rate.
    if tat > now then tat = now + (tat - now) * (want / iv) end
    iv = want
    redis.call('HSET', key, 'tat', tostring(tat), 'iv', tostring(iv))
  end
  return tat, iv, num(st[3], 0), num(st[8], now)
end
`;

/**
 * take: KEYS = levels; ARGV = cost, ttlMs, then per level: configured interval, burst, slowest
 * interval, beta, scale. Spends on every level or none. Returns { granted (1/0), wait ms }.
 */
export const TAKE = `${PRELUDE}
local cost = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local wait = 0
local tats, ivs, ctats, civs = {}, {}, {}, {}
for i = 1, #KEYS do
  local b = 2 + (i - 1) * 5
  local civ, burst, miniv, beta, scale = tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3]), tonumber(ARGV[b + 4]), tonumber(ARGV[b + 5])
  local tat, iv, pause, ctat = effective(KEYS[i], civ, miniv, beta, scale)
  ctats[i] = ctat
  civs[i] = civ
  if tat < now then tat = now end
  local w = tat + cost * iv - burst * iv - now
  if pause - now > w then w = pause - now end
  if w > wait then wait = w end
  tats[i] = tat
  ivs[i] = iv
end
if wait > 0.000001 then return {0, tostring(wait)} end
for i = 1, #KEYS do
  local nt = tats[i] + cost * ivs[i]
  local nct = math.max(ctats[i], now) + cost * civs[i]
  redis.call('HSET', KEYS[i], 'tat', tostring(nt), 'ctat', tostring(nct))
  redis.call('PEXPIRE', KEYS[i], math.ceil(nt - now + ttl))
end
return {1, '0'}
`;

/**
 * observe: KEYS[1] = the level; ARGV = configured interval, burst, slowest interval, beta, scale,
 * ttlMs, retryAfterMs, remaining, resetSeconds, throttled (each '' when absent).
 * Applies a vendor quota signal for every process at once. Returns the interval in force.
 */
export const OBSERVE = `${PRELUDE}
local civ, burst, miniv, beta, scale, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local retry, remaining, reset, throttled = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9]), ARGV[10] == '1'
local key = KEYS[1]
local tat, iv, pause = effective(key, civ, miniv, beta, scale)
local keep = ttl
if retry ~= nil and retry > 0 then
  if now + retry > pause then redis.call('HSET', key, 'pause', tostring(now + retry)) end
  keep = math.max(keep, retry + ttl)
end
if remaining ~= nil and reset ~= nil and reset >= 0 then
  local wend = now + reset * 1000
  if remaining <= 0 then
    if reset > 0 and wend > pause then redis.call('HSET', key, 'pause', tostring(wend)) end
  else
    -- Hold no more than the vendor will take; refill the rest so it lasts until the reset.
    local cap = math.min(burst, remaining)
    local floor = now + (burst - cap) * iv
    if tat < floor then tat = floor redis.call('HSET', key, 'tat', tostring(tat)) end
    local held = burst - math.max(0, tat - now) / iv
    local sustainable = 1e12
    -- Spread to a little before the reset (as spreadHorizon): it was measured a trip ago.
    if reset > 0 then sustainable = math.max(0, remaining - held) / (reset - math.min(reset / 2, math.max(reset / 10, 0.1))) end
    if sustainable < 1000 / civ then
      local qiv = 1000 / math.max(sustainable, 1e-6)
      redis.call('HSET', key, 'qend', tostring(wend), 'qiv', tostring(qiv))
    else
      redis.call('HDEL', key, 'qend', 'qiv')
    end
  end
  keep = math.max(keep, reset * 1000 + ttl)
elseif throttled and (retry == nil or retry <= 0) then
  redis.call('HSET', key, 'thr', tostring(now), 'wmax', tostring(1000 / iv))
end
tat, iv, pause = effective(key, civ, miniv, beta, scale)
redis.call('PEXPIRE', key, math.ceil(math.max(keep, tat - now + ttl)))
return tostring(iv)
`;

/** snapshot: KEYS[1] = the level; ARGV = configured interval, burst, slowest interval, beta, scale. Returns tokens, interval, paused-until (relative ms). */
export const SNAPSHOT = `${PRELUDE}
local civ, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
if redis.call('EXISTS', KEYS[1]) == 0 then return {tostring(burst), tostring(civ), '0'} end
local tat, iv, pause = effective(KEYS[1], civ, tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]))
local tokens = burst - math.max(0, tat - now) / iv
return {tostring(tokens), tostring(iv), tostring(math.max(0, pause - now))}
`;
