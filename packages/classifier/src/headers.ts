/** Response headers as any client gives them: a plain record (undici), a `Headers`, or pairs. */
export type HeaderInput =
  | Readonly<Record<string, string | readonly string[] | number | undefined | null>>
  | { get(name: string): string | null }
  | ReadonlyArray<readonly [string, string]>
  | undefined
  | null;

/**
 * Case-insensitive single-value reader over any {@link HeaderInput}. Never throws. `quota` is
 * false when no quota header (X-RateLimit-*, RateLimit*, Retry-After) can be present.
 */
export type HeaderReader = ((lowerName: string) => string | undefined) & { quota: boolean };

const reader = (fn: (lowerName: string) => string | undefined, quota: boolean): HeaderReader =>
  Object.assign(fn, { quota });
const EMPTY: HeaderReader = reader(() => undefined, false);

export function headerReader(input: HeaderInput): HeaderReader {
  if (input === undefined || input === null || typeof input !== 'object') return EMPTY;
  try {
    if (typeof (input as { get?: unknown }).get === 'function' && !Array.isArray(input)) {
      const h = input as { get(name: string): string | null };
      return reader((name) => {
        try {
          return h.get(name) ?? undefined;
        } catch {
          return undefined;
        }
      }, true);
    }
    if (Array.isArray(input))
      return fromRecord(Object.fromEntries(input.filter((p) => Array.isArray(p) && p.length >= 2)));
    return fromRecord(input as Record<string, unknown>);
  } catch {
    return EMPTY;
  }
}

function fromRecord(record: Record<string, unknown>): HeaderReader {
  // undici and node:http give lower-case names; only copy when some name is not. The same
  // pass notes whether any quota header is there at all (most answers carry none).
  let lower: Record<string, unknown> = record;
  let quota = false;
  for (const k in record) {
    if (hasUpper(k)) {
      lower = {};
      for (const key in record) lower[key.toLowerCase()] = record[key];
      quota = true;
      break;
    }
    if (!quota && isQuotaName(k)) quota = true;
  }
  return reader((name) => {
    const v = lower[name];
    if (typeof v === 'string') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    if (Array.isArray(v)) return v.filter((x) => typeof x === 'string').join(', ') || undefined;
    return undefined;
  }, quota);
}

function isQuotaName(k: string): boolean {
  const c = k.charCodeAt(0);
  if (c === 120) return k.startsWith('x-ratelimit') || k.startsWith('x-rate-limit'); // x
  if (c === 114) return k.startsWith('ratelimit') || k === 'retry-after'; // r
  return false;
}

function hasUpper(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) return true;
  }
  return false;
}
