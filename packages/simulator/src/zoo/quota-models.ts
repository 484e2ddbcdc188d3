/**
 * The quota models real vendors keep, as pure state machines over time in milliseconds. Each
 * admits or refuses a request arriving at its gateway and says what it would report about its
 * quota after that decision, in its own terms: what it calls "limit", "remaining" and "reset"
 * differs from model to model, which is the point of the zoo.
 */
export interface QuotaReport {
  /** What the vendor advertises as its limit (`X-RateLimit-Limit`). */
  readonly limit: number;
  /** What it says is left (`X-RateLimit-Remaining`). */
  readonly remaining: number;
  /** What it calls the reset, in ms from now (its own meaning: see each model). */
  readonly resetMs: number;
  /** On a refusal: when a request would next be admitted, in ms from now. */
  readonly retryAfterMs: number;
  /** The IETF `RateLimit-Policy` of the quota: `q` requests per `w` seconds. */
  readonly policy: { readonly quota: number; readonly windowSeconds: number };
  /** A vendor with more than one quota (`two-tier`): every one of them, in its own terms. */
  readonly tiers?: readonly TierReport[];
}

/** One of several quotas a vendor keeps at once, as it stands after a request. */
export interface TierReport {
  readonly limit: number;
  readonly remaining: number;
  readonly resetMs: number;
  readonly windowSeconds: number;
}

export interface QuotaModel {
  /** The model's name in the zoo table. */
  readonly name: QuotaModelName;
  /** The sustained rate the vendor allows, requests per second (what 100 % goodput means). */
  readonly ratePerSecond: number;
  /** Admits or refuses one request arriving at `now`; refused requests count for nothing. */
  arrive(now: number): { readonly admitted: boolean; readonly report: QuotaReport };
}

export type QuotaModelName =
  | 'fixed-window'
  | 'expiring-counter'
  | 'sliding-log'
  | 'sliding-counter'
  | 'sliding-counter-next-fit'
  | 'token-bucket'
  | 'gcra'
  | 'two-tier';

export const QUOTA_MODELS: readonly QuotaModelName[] = [
  'fixed-window',
  'expiring-counter',
  'sliding-log',
  'sliding-counter',
  'token-bucket',
  'gcra',
];

/** `limit` requests per window of `windowMs`, counted in windows aligned on multiples of it; reset = time to the window's end. */
export function fixedWindow(limit: number, windowMs: number): QuotaModel {
  return counted('fixed-window', limit, windowMs, (now) => Math.floor(now / windowMs) * windowMs);
}

/**
 * A counter with an expiry, as rate-limiter-flexible's Redis store and most `INCR` + `EXPIRE`
 * gateways keep it: a window of `windowMs` starts at the first request after the last window
 * ended, and admits `limit`; reset = time to that window's end. Its windows are not aligned
 * on anything the client can see: each starts when the client next sends.
 */
export function expiringCounter(limit: number, windowMs: number): QuotaModel {
  return counted('expiring-counter', limit, windowMs, (now, start) =>
    now >= start + windowMs ? now : start,
  );
}

// A counter of `limit` per window of `windowMs`, the window in force at `now` starting where
// `startAt` says (given the last one's start); reset = time to its end.
function counted(
  name: QuotaModelName,
  limit: number,
  windowMs: number,
  startAt: (now: number, start: number) => number,
): QuotaModel {
  let start = Number.NEGATIVE_INFINITY;
  let count = 0;
  const policy = { quota: limit, windowSeconds: windowMs / 1000 };
  return {
    name,
    ratePerSecond: (limit * 1000) / windowMs,
    arrive(now) {
      const begins = startAt(now, start);
      if (begins !== start) {
        start = begins;
        count = 0;
      }
      const admitted = count < limit;
      if (admitted) count++;
      const resetMs = start + windowMs - now;
      return {
        admitted,
        report: { limit, remaining: limit - count, resetMs, retryAfterMs: resetMs, policy },
      };
    },
  };
}

/**
 * At most `limit` admissions in any window of `windowMs` ending now (a log of admission
 * times); reset = time until the oldest admission leaves the window, which frees one request only.
 */
export function slidingLog(limit: number, windowMs: number): QuotaModel {
  const log: number[] = [];
  let head = 0;
  const policy = { quota: limit, windowSeconds: windowMs / 1000 };
  return {
    name: 'sliding-log',
    ratePerSecond: (limit * 1000) / windowMs,
    arrive(now) {
      while (head < log.length && log[head]! <= now - windowMs) head++;
      if (head > 1024) {
        log.splice(0, head);
        head = 0;
      }
      const size = log.length - head;
      const admitted = size < limit;
      if (admitted) log.push(now);
      const oldest = log[head];
      const resetMs = oldest === undefined ? 0 : oldest + windowMs - now;
      return {
        admitted,
        report: {
          limit,
          remaining: limit - (log.length - head),
          resetMs,
          retryAfterMs: resetMs,
          policy,
        },
      };
    },
  };
}

/**
 * The weighted two-window estimate many gateways use: the previous window's count weighted by
 * the part of it still inside the sliding window, plus the current count, is below `limit`
 * before a request is admitted;
 * reset = time to the current fixed window's end (when the estimate drops, not to zero), or with
 * `reset: 'next-fit'` (`sliding-counter-next-fit`, held out of the zoo's table) the time until one
 * more request would be admitted: 0 while there is room, as some gateways write it.
 */
export function slidingCounter(
  limit: number,
  windowMs: number,
  reset: 'window-end' | 'next-fit' = 'window-end',
): QuotaModel {
  let index = Number.NEGATIVE_INFINITY;
  let prev = 0;
  let cur = 0;
  const policy = { quota: limit, windowSeconds: windowMs / 1000 };
  const estimate = (now: number): number => {
    const elapsed = now - index * windowMs;
    return (prev * (windowMs - elapsed)) / windowMs + cur;
  };
  return {
    name: reset === 'next-fit' ? 'sliding-counter-next-fit' : 'sliding-counter',
    ratePerSecond: (limit * 1000) / windowMs,
    arrive(now) {
      const i = Math.floor(now / windowMs);
      if (i !== index) {
        prev = i === index + 1 ? cur : 0;
        cur = 0;
        index = i;
      }
      const admitted = estimate(now) < limit;
      if (admitted) cur++;
      const end = (i + 1) * windowMs;
      const resetMs = end - now;
      // When one more would fit: the previous window's weight must fall by what is missing.
      let nextFitMs = resetMs;
      const missing = estimate(now) - limit + 1e-9;
      if (missing <= 0) nextFitMs = 0;
      else if (prev > 0) {
        const dt = (missing * windowMs) / prev;
        if (now + dt < end) nextFitMs = dt;
      }
      const retryAfterMs = admitted ? 0 : nextFitMs;
      return {
        admitted,
        report: {
          limit,
          remaining: Math.max(0, Math.floor(limit - estimate(now))),
          resetMs: reset === 'next-fit' ? nextFitMs : resetMs,
          retryAfterMs,
          policy,
        },
      };
    },
  };
}

/**
 * The IETF policy a bucket (or GCRA) of `capacity` refilled at `ratePerSecond` advertises: its
 * rate over the time it takes to fill, a second at least (so `r`, at most the capacity, stays
 * within `q`): 20 per 1 s for the zoo's bucket of 20 at 20/s, 100 per 10 s for one of 100 at 10/s.
 */
function bucketPolicy(capacity: number, ratePerSecond: number): { quota: number; windowSeconds: number } {
  const windowSeconds = Math.max(1, Math.round(capacity / ratePerSecond));
  return { quota: ratePerSecond * windowSeconds, windowSeconds };
}

/** A bucket of `capacity` refilled at `ratePerSecond`; reset = time until the bucket is full again. */
export function tokenBucket(capacity: number, ratePerSecond: number): QuotaModel {
  let tokens = capacity;
  let at = Number.NaN;
  const policy = bucketPolicy(capacity, ratePerSecond);
  return {
    name: 'token-bucket',
    ratePerSecond,
    arrive(now) {
      if (!Number.isNaN(at)) tokens = Math.min(capacity, tokens + ((now - at) * ratePerSecond) / 1000);
      at = now;
      const admitted = tokens >= 1;
      if (admitted) tokens -= 1;
      return {
        admitted,
        report: {
          limit: capacity,
          remaining: Math.floor(tokens),
          resetMs: ((capacity - tokens) * 1000) / ratePerSecond,
          retryAfterMs: admitted ? 0 : ((1 - tokens) * 1000) / ratePerSecond,
          policy,
        },
      };
    },
  };
}

/**
 * GCRA (as redis-cell and many API gateways): one theoretical arrival time; a burst of `burst`
 * at `ratePerSecond`; limit = burst, reset = time until the state is fully reset.
 */
export function gcra(ratePerSecond: number, burst: number): QuotaModel {
  const interval = 1000 / ratePerSecond;
  let tat = Number.NEGATIVE_INFINITY;
  const policy = bucketPolicy(burst, ratePerSecond);
  return {
    name: 'gcra',
    ratePerSecond,
    arrive(now) {
      const next = Math.max(tat, now) + interval;
      const admitted = next - now <= burst * interval + 1e-9;
      if (admitted) tat = next;
      const ahead = Math.max(0, tat - now);
      return {
        admitted,
        report: {
          limit: burst,
          remaining: Math.max(0, Math.floor(burst - ahead / interval + 1e-9)),
          resetMs: ahead,
          retryAfterMs: admitted ? 0 : next - now - burst * interval,
          policy,
        },
      };
    },
  };
}

/**
 * Two fixed windows at once, aligned on multiples of each, as API gateways are often configured
 * (Kong's rate-limiting plugin with `second: 20, minute: 600`): a request is admitted when both
 * have room, and counted by both. What it reports as its limit, remaining and reset is the
 * quota with the least left (ties: the larger limit), as Kong's `RateLimit-*` headers do; a
 * refusal's retry time is the end of the window it hit. Every quota is in `tiers`.
 */
export function twoTier(
  quotas: readonly { readonly limit: number; readonly windowMs: number }[],
): QuotaModel {
  const starts = quotas.map(() => Number.NEGATIVE_INFINITY);
  const counts = quotas.map(() => 0);
  return {
    name: 'two-tier',
    ratePerSecond: Math.min(...quotas.map((q) => (q.limit * 1000) / q.windowMs)),
    arrive(now) {
      quotas.forEach((q, i) => {
        const start = Math.floor(now / q.windowMs) * q.windowMs;
        if (start !== starts[i]) {
          starts[i] = start;
          counts[i] = 0;
        }
      });
      const hit = quotas.findIndex((q, i) => counts[i]! >= q.limit);
      if (hit < 0) for (let i = 0; i < quotas.length; i++) counts[i]!++;
      const tiers: TierReport[] = quotas.map((q, i) => ({
        limit: q.limit,
        remaining: q.limit - counts[i]!,
        resetMs: starts[i]! + q.windowMs - now,
        windowSeconds: q.windowMs / 1000,
      }));
      let shown = Math.max(hit, 0);
      if (hit < 0)
        tiers.forEach((t, i) => {
          const best = tiers[shown]!;
          if (t.remaining < best.remaining || (t.remaining === best.remaining && t.limit > best.limit))
            shown = i;
        });
      const t = tiers[shown]!;
      return {
        admitted: hit < 0,
        report: {
          limit: t.limit,
          remaining: t.remaining,
          resetMs: t.resetMs,
          retryAfterMs: t.resetMs,
          policy: { quota: t.limit, windowSeconds: t.windowSeconds },
          tiers,
        },
      };
    },
  };
}

/**
 * The zoo's models, each a quota of `ratePerSecond` requests a second (20 unless told) over a
 * window of `windowMs` (1 s unless told): the window models count rate × window per window, the
 * bucket holds a window's worth, GCRA a burst of half that.
 */
export function quotaModel(name: QuotaModelName, ratePerSecond = 20, windowMs = 1000): QuotaModel {
  const perWindow = Math.max(1, Math.round((ratePerSecond * windowMs) / 1000));
  switch (name) {
    case 'fixed-window':
      return fixedWindow(perWindow, windowMs);
    case 'expiring-counter':
      return expiringCounter(perWindow, windowMs);
    case 'sliding-log':
      return slidingLog(perWindow, windowMs);
    case 'sliding-counter':
      return slidingCounter(perWindow, windowMs);
    case 'sliding-counter-next-fit':
      return slidingCounter(perWindow, windowMs, 'next-fit');
    case 'token-bucket':
      return tokenBucket(perWindow, ratePerSecond);
    case 'gcra':
      return gcra(ratePerSecond, Math.max(1, perWindow / 2));
    case 'two-tier': {
      // Twice the rate a second, and the rate over the window (a minute for windows under 10 s).
      const longMs = windowMs >= 10_000 ? windowMs : 60_000;
      return twoTier([
        { limit: Math.max(1, Math.round(2 * ratePerSecond)), windowMs: 1000 },
        { limit: Math.max(1, Math.round((ratePerSecond * longMs) / 1000)), windowMs: longMs },
      ]);
    }
  }
}
