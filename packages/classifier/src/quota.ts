import type { DeclaredQuota, QuotaSignal } from '@rxgate/core';
import { type BareItem, type List, parseList, Token } from 'structured-headers';
import { kongQuotas, listedWindow, type UnitQuota, windowOfReported } from './declared-windows.js';
import { type HeaderInput, type HeaderReader, headerReader } from './headers.js';
import { parseRetryAfter } from './retry-after.js';

/**
 * What a vendor said about its quota on one answer (defined in @rxgate/core): the shape
 * `@rxgate/ratelimit`'s `observe()` takes. `classify` sets `throttled` on 429 and 503-as-throttle.
 */
export type { QuotaSignal };

export interface QuotaOptions {
  /** Now, in epoch milliseconds (to read an epoch reset or an HTTP-date). */
  readonly now: number;
}

const DAY_S = 86_400;

/** A non-negative decimal number at the start of a header value (up to a comma), or undefined. */
function num(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  let i = 0;
  const n = v.length;
  while (i < n && (v.charCodeAt(i) === 32 || v.charCodeAt(i) === 9)) i++;
  const start = i;
  let dot = false;
  while (i < n) {
    const c = v.charCodeAt(i);
    if (c >= 48 && c <= 57) i++;
    else if (c === 46 && !dot && i > start) {
      dot = true;
      i++;
    } else break;
  }
  const end = i;
  if (end === start || v.charCodeAt(end - 1) === 46) return undefined;
  while (i < n && (v.charCodeAt(i) === 32 || v.charCodeAt(i) === 9)) i++;
  if (i < n && v.charCodeAt(i) !== 44) return undefined;
  const x = Number(v.slice(start, end));
  return Number.isFinite(x) ? x : undefined;
}

/**
 * Seconds until reset from a value that may be delta-seconds, delta-milliseconds, epoch
 * seconds or epoch milliseconds. Epochs are told by size (≥ 1e12 ms, ≥ 1e9 s), and need an
 * epoch `now`; other values up to a day read as seconds (the common and the IETF spelling),
 * larger ones up to a day in milliseconds as milliseconds.
 */
export function resetToSeconds(value: number, now: number, unit?: 'ms'): number | undefined {
  if (!Number.isFinite(value) || value < 0) return undefined;
  const nowIsEpoch = now >= 1e12;
  if (value >= 1e12) return nowIsEpoch ? Math.max(0, (value - now) / 1000) : undefined;
  if (value >= 1e9) return nowIsEpoch ? Math.max(0, value - now / 1000) : undefined;
  if (unit === 'ms') return value / 1000;
  if (value <= DAY_S) return value;
  if (value <= DAY_S * 1000) return value / 1000;
  return undefined;
}

interface Policy {
  limit?: number;
  remaining?: number;
  resetSeconds?: number;
  windowSeconds?: number;
  policy?: string;
  quotas?: readonly DeclaredQuota[];
}

/**
 * Reads the quota a vendor reports: `X-RateLimit-Limit/Remaining/Reset` (also spelled
 * `X-Rate-Limit-*`, and `X-RateLimit-Reset-Ms`), the IETF `RateLimit-Policy` / `RateLimit`
 * structured fields (several named policies: the most restrictive is reported; the older
 * `RateLimit: limit=…, remaining=…, reset=…` and `RateLimit-Limit`/`-Remaining`/`-Reset`
 * drafts too) and `Retry-After`. Malformed values are ignored; never throws.
 * Returns undefined when the answer says nothing about the quota.
 */
export function parseQuota(headers: HeaderInput, options: QuotaOptions): QuotaSignal | undefined {
  return readQuota(headerReader(headers), options.now);
}

/** @internal The same, over a reader already built. */
export function readQuota(h: HeaderReader, now: number): QuotaSignal | undefined {
  if (!h.quota) return undefined;
  const candidates: Policy[] = [];

  const xLimitRaw = h('x-ratelimit-limit') ?? h('x-rate-limit-limit');
  const xLimit = num(xLimitRaw);
  const xRemaining = num(h('x-ratelimit-remaining') ?? h('x-rate-limit-remaining'));
  const xResetMs = num(h('x-ratelimit-reset-ms'));
  const xResetRaw = num(h('x-ratelimit-reset') ?? h('x-rate-limit-reset'));
  const xReset =
    xResetMs !== undefined
      ? resetToSeconds(xResetMs, now, 'ms')
      : xResetRaw === undefined
        ? undefined
        : resetToSeconds(xResetRaw, now);
  if (xLimit !== undefined || xRemaining !== undefined || xReset !== undefined) {
    candidates.push(withListedWindow(policy(xLimit, xRemaining, xReset), xLimitRaw));
  }

  const ietf = h('ratelimit');
  if (ietf !== undefined) candidates.push(...parseIetf(ietf, h('ratelimit-policy'), now));
  else {
    const lRaw = h('ratelimit-limit');
    const l = num(lRaw);
    const r = num(h('ratelimit-remaining'));
    const t = num(h('ratelimit-reset'));
    if (l !== undefined || r !== undefined || t !== undefined)
      candidates.push(
        withListedWindow(policy(l, r, t === undefined ? undefined : resetToSeconds(t, now)), lRaw),
      );
  }

  const retryAfter = h('retry-after');
  // The Date header matters only to an HTTP-date.
  const retryAfterMs =
    retryAfter === undefined
      ? undefined
      : parseRetryAfter(retryAfter, { now, date: /^\s*\d/.test(retryAfter) ? undefined : h('date') });
  // Kong's quotas per unit: the window of the one reported, or, reported alone, the one with the
  // least left (as Kong's own RateLimit-* pick it).
  const kong = kongQuotas(h);
  if (candidates.length === 0 && kong.length > 0) candidates.push(leastLeft(kong));
  // One candidate (the usual case) needs no comparison, only the check that it says something.
  const chosen = candidates.length === 1 ? informative(candidates[0]!) : mostRestrictive(candidates);
  if (chosen !== undefined && chosen.windowSeconds === undefined && kong.length > 0) {
    const w = windowOfReported(kong, chosen.limit, chosen.remaining);
    if (w !== undefined) chosen.windowSeconds = w;
  }
  // Every quota Kong declares goes with the one reported.
  if (chosen !== undefined && kong.length > 1)
    chosen.quotas = kong.map(({ limit, windowSeconds }) => ({ limit, windowSeconds }));
  if (chosen === undefined && retryAfterMs === undefined) return undefined;
  if (chosen === undefined) return { retryAfterMs: retryAfterMs! };
  // A chosen policy is already a fresh object of its own: it becomes the signal.
  const out = chosen as { -readonly [K in keyof QuotaSignal]: QuotaSignal[K] };
  if (retryAfterMs !== undefined) out.retryAfterMs = retryAfterMs;
  return out;
}

function policy(
  limit: number | undefined,
  remaining: number | undefined,
  resetSeconds: number | undefined,
): Policy {
  const p: Policy = {};
  if (limit !== undefined) p.limit = limit;
  if (remaining !== undefined) p.remaining = limit === undefined ? remaining : Math.min(remaining, limit);
  if (resetSeconds !== undefined) p.resetSeconds = resetSeconds;
  return p;
}

// A Limit in the list form of the early IETF drafts declares the window (see listedWindow).
function withListedWindow(p: Policy, limitValue: string | undefined): Policy {
  const w = listedWindow(limitValue, p.limit);
  if (w !== undefined) p.windowSeconds = w;
  return p;
}

// Of a gateway's quotas per unit, the one with the least left (ties: the larger limit, then the
// longer window), as a policy.
function leastLeft(quotas: readonly UnitQuota[]): Policy {
  let best = quotas[0]!;
  for (const q of quotas) {
    const left = q.remaining ?? q.limit;
    const bestLeft = best.remaining ?? best.limit;
    if (
      left < bestLeft ||
      (left === bestLeft &&
        (q.limit > best.limit || (q.limit === best.limit && q.windowSeconds > best.windowSeconds)))
    )
      best = q;
  }
  const p = policy(best.limit, best.remaining, undefined);
  p.windowSeconds = best.windowSeconds;
  return p;
}

// A policy that gives a number: a name or a window alone (`limit=abc`, `"default";r=abc`) says
// nothing about the quota.
function informative(p: Policy): Policy | undefined {
  return p.remaining === undefined && p.limit === undefined && p.resetSeconds === undefined ? undefined : p;
}

/**
 * Least sustainable first: no remaining at all, then the fewest remaining per second of window
 * left. Two spellings of one policy (the same limit and remaining, as X-RateLimit-* and the
 * IETF fields often are) count once, with the more precise reset.
 */
function mostRestrictive(ps: Policy[]): Policy | undefined {
  let best: Policy | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i]!;
    if (informative(p) === undefined || hasPreciserTwin(ps, p)) continue;
    const r = p.remaining ?? p.limit ?? Number.POSITIVE_INFINITY;
    const t = p.resetSeconds ?? p.windowSeconds ?? 1;
    const score = r === 0 ? -t : r / Math.max(t, 1e-3);
    if (best === undefined || score < bestScore) {
      best = p;
      bestScore = score;
    }
  }
  return best;
}

// Another spelling of the same policy (same limit and remaining) with a more precise reset.
function hasPreciserTwin(ps: Policy[], p: Policy): boolean {
  if (p.resetSeconds === undefined) return false;
  for (const q of ps) {
    if (q === p || q.resetSeconds === undefined || q.remaining !== p.remaining) continue;
    if (q.limit !== undefined && p.limit !== undefined && q.limit !== p.limit) continue;
    if (q.resetSeconds < p.resetSeconds && p.resetSeconds - q.resetSeconds < 1) return true;
  }
  return false;
}

interface SfItem {
  readonly name: string;
  readonly params: ReadonlyMap<string, string>;
}

// Vendors repeat the same field values; parsing each distinct one once keeps this off the hot path.
const sfCache = new Map<string, readonly SfItem[]>();

/**
 * A structured-field list of items with parameters, `"name";k=v;k2="v", token;k=v`, read as
 * RFC 9651 says (quoted strings, escapes, byte sequences, decimals) by `structured-headers`.
 * A value it refuses is read leniently after it, as vendors' near-misses deserve (spaces
 * around "=", upper-case keys): split on unquoted "," and ";".
 */
function parseSfList(s: string): readonly SfItem[] {
  const cached = sfCache.get(s);
  if (cached !== undefined) return cached;
  let items: SfItem[];
  try {
    items = fromStructured(parseList(s));
  } catch {
    items = parseLenient(s);
  }
  // Stryker disable next-line all: the cache's bound only limits memory; every answer is the same.
  if (sfCache.size >= 1024) sfCache.clear();
  sfCache.set(s, items);
  return items;
}

function fromStructured(list: List): SfItem[] {
  const items: SfItem[] = [];
  for (const [value, parameters] of list) {
    // An inner list names no policy; a policy is named by a string or a token.
    if (Array.isArray(value)) continue;
    const name = typeof value === 'string' ? value : value instanceof Token ? value.toString() : undefined;
    if (name === undefined || name === '') continue;
    const params = new Map<string, string>();
    for (const [key, v] of parameters) params.set(key, bareText(v));
    items.push({ name, params });
  }
  return items;
}

// Parameters as the text `num` reads: a number as written, a string as it is. A token, a flag or
// a byte sequence is never a number (a token cannot start with a digit): no text.
function bareText(v: BareItem): string {
  if (typeof v === 'number') return String(v);
  return typeof v === 'string' ? v : '';
}

function parseLenient(s: string): SfItem[] {
  const items: SfItem[] = [];
  for (const raw of splitList(s)) {
    const parts = raw.split(';');
    let name = parts[0]!.trim();
    // A quoted name may hold blanks and "=" (an sf-string may); an unquoted one with either is
    // no name but a near-miss of something else (`limit = 10`).
    if (name.startsWith('"') && name.endsWith('"') && name.length >= 2) name = name.slice(1, -1);
    else if (/[\s=]/.test(name)) continue;
    if (name === '') continue;
    const params = new Map<string, string>();
    for (const part of parts.slice(1)) {
      const eq = part.indexOf('=');
      const key = (eq < 0 ? part : part.slice(0, eq)).trim();
      if (key === '') continue;
      // A flag (no "=") is RFC 9651's true, ?1: no number, like any other text but digits.
      // Stryker disable next-line StringLiteral: '?1' and any other non-number text read the same.
      let value = eq < 0 ? '?1' : part.slice(eq + 1).trim();
      if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
      params.set(key, value);
    }
    items.push({ name, params });
  }
  return items;
}

function parseIetf(rateLimit: string, rateLimitPolicy: string | undefined, now: number): Policy[] {
  // Draft 07: a dictionary `limit=100, remaining=42, reset=7`.
  if (!rateLimit.includes(';') && /(^|,)\s*(limit|remaining|reset)\s*=/.test(rateLimit)) {
    const d = new Map<string, number | undefined>();
    for (const part of rateLimit.split(',')) {
      const [k, v] = part.split('=').map((x) => x.trim());
      if (k) d.set(k, num(v));
    }
    const reset = d.get('reset');
    return [
      policy(
        d.get('limit'),
        d.get('remaining'),
        reset === undefined ? undefined : resetToSeconds(reset, now),
      ),
    ];
  }
  // Draft 08+: lists of named items, `"default";r=42;t=7` with `"default";q=100;w=10`.
  const quotas = rateLimitPolicy === undefined ? undefined : parseSfList(rateLimitPolicy);
  const out: Policy[] = [];
  for (const item of parseSfList(rateLimit)) {
    const r = num(item.params.get('r'));
    const t = num(item.params.get('t'));
    const q = quotas?.find((x) => x.name === item.name)?.params;
    const pol = policy(num(q?.get('q')), r, t === undefined ? undefined : resetToSeconds(t, now));
    const w = num(q?.get('w'));
    if (w !== undefined && w > 0) pol.windowSeconds = w;
    pol.policy = item.name;
    out.push(pol);
  }
  return out;
}

function splitList(s: string): string[] {
  if (!s.includes('"')) return s.split(',').filter((x) => x.trim() !== '');
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of s) {
    if (ch === '"') quoted = !quoted;
    if (ch === ',' && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur);
  return out;
}
