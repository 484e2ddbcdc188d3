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
 * `limitsBySeconds()`: the lower-case names of the `X-RateLimit-Limit-<seconds>` headers there
 * (Kong's rate-limiting-advanced plugin names each window by its length), read by name only.
 */
export type HeaderReader = ((lowerName: string) => string | undefined) & {
  quota: boolean;
  limitsBySeconds(): readonly string[];
};

const NONE: readonly string[] = [];
const BY_SECONDS = /^x-ratelimit-limit-\d+$/;

const reader = (
  fn: (lowerName: string) => string | undefined,
  quota: boolean,
  limitsBySeconds: () => readonly string[] = () => NONE,
): HeaderReader => Object.assign(fn, { quota, limitsBySeconds });
const EMPTY: HeaderReader = reader(() => undefined, false);

export function headerReader(input: HeaderInput): HeaderReader {
  if (input === undefined || input === null || typeof input !== 'object') return EMPTY;
  try {
    if (typeof (input as { get?: unknown }).get === 'function' && !Array.isArray(input)) {
      const h = input as { get(name: string): string | null; keys?: () => Iterable<string> };
      return reader(
        (name) => {
          try {
            return h.get(name) ?? undefined;
          } catch {
            return undefined;
          }
        },
        true,
        () => {
          try {
            if (typeof h.keys !== 'function') return NONE;
            const out: string[] = [];
            for (const k of h.keys())
              if (typeof k === 'string' && BY_SECONDS.test(k.toLowerCase())) out.push(k.toLowerCase());
            return out;
          } catch {
            return NONE;
          }
        },
      );
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
  return reader(
    (name) => {
      const v = headerValue(lower, name);
      if (typeof v === 'string') return v;
      if (typeof v === 'number' && Number.isFinite(v)) return String(v);
      if (Array.isArray(v)) return v.filter((x) => typeof x === 'string').join(', ') || undefined;
      return undefined;
    },
    quota,
    () => {
      const out: string[] = [];
      for (const k in lower) if (BY_SECONDS.test(k)) out.push(k);
      return out;
    },
  );
}

/** @internal The header names read by name in {@link headerValue}: those `readQuota` asks for. */
export const NAMED_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset-ms',
  'x-ratelimit-reset',
  'ratelimit',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'retry-after',
  'x-rate-limit-limit',
  'x-rate-limit-remaining',
  'x-rate-limit-reset',
  'ratelimit-policy',
  'date',
] as const;

/**
 * @internal `record[name]`, with a named read for each of {@link NAMED_HEADERS}: one keyed
 * read of the dozen names `readQuota` asks for is a megamorphic property access, ten a claim
 * when quota headers come (held to `record[name]` by a property in headers.test.ts).
 */
export function headerValue(record: Record<string, unknown>, name: string): unknown {
  switch (name) {
    case 'x-ratelimit-limit':
      return record['x-ratelimit-limit'];
    case 'x-ratelimit-remaining':
      return record['x-ratelimit-remaining'];
    case 'x-ratelimit-reset-ms':
      return record['x-ratelimit-reset-ms'];
    case 'x-ratelimit-reset':
      return record['x-ratelimit-reset'];
    case 'ratelimit':
      return record.ratelimit;
    case 'ratelimit-limit':
      return record['ratelimit-limit'];
    case 'ratelimit-remaining':
      return record['ratelimit-remaining'];
    case 'ratelimit-reset':
      return record['ratelimit-reset'];
    case 'retry-after':
      return record['retry-after'];
    case 'x-rate-limit-limit':
      return record['x-rate-limit-limit'];
    case 'x-rate-limit-remaining':
      return record['x-rate-limit-remaining'];
    case 'x-rate-limit-reset':
      return record['x-rate-limit-reset'];
    case 'ratelimit-policy':
      return record['ratelimit-policy'];
    case 'date':
      return record.date;
    default:
      return record[name];
  }
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
