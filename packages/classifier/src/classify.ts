import { type Catalogue, defaultCatalogue, type RejectCodeInfo } from './catalogue.js';
import { commitEvidence, type Draft } from './commit.js';
import { type HeaderInput, headerReader } from './headers.js';
import { type QuotaSignal, readQuota } from './quota.js';
import type { RejectGroup } from './reject-codes.js';
import type { Amounts, CommitEvidence, Verdict } from './verdict.js';

/** An HTTP answer: status, headers, and the body (parsed JSON, or its text). */
export interface ResponseInput {
  readonly status: number;
  readonly headers?: HeaderInput;
  readonly body?: unknown;
}

/**
 * A transport failure. `not-sent`: the request never left (connect failure, DNS, or a breaker
 * or limiter refusal). `sent`: it may have been processed (a timeout or reset after it left).
 */
export interface ErrorInput {
  readonly error: unknown;
  readonly phase: 'not-sent' | 'sent';
}

export interface ClassifyOptions {
  /** Now in epoch milliseconds, to read epoch resets and HTTP-dates. @default Date.now() */
  readonly now?: number;
  /** The catalogue (a payer's overrides). @default the built-in one */
  readonly catalogue?: Catalogue;
  /** 103-A3 of the request. Host errors on an E1 eligibility check never trip the breaker. */
  readonly transactionCode?: string;
  /** The deferred retry for host data faults and 3W, in milliseconds. @default 1_200_000 (20 min, as VistA) */
  readonly deferredRetryMs?: number;
}

const DEFERRED_MS = 20 * 60 * 1000;
/** @internal -?\d{1,15}(\.\d{1,6})?, checked by hand: money is on the hot path of every paid answer. */
export function isDecimal(v: string): boolean {
  let i = v.charCodeAt(0) === 45 ? 1 : 0;
  const start = i;
  while (i < v.length && v.charCodeAt(i) >= 48 && v.charCodeAt(i) <= 57) i++;
  const intDigits = i - start;
  if (intDigits < 1 || intDigits > 15) return false;
  if (i === v.length) return true;
  if (v.charCodeAt(i) !== 46) return false;
  const f = ++i;
  while (i < v.length && v.charCodeAt(i) >= 48 && v.charCodeAt(i) <= 57) i++;
  return i === v.length && i - f >= 1 && i - f <= 6;
}

/**
 * One vendor answer, or one transport failure, to one {@link Verdict}. Pure and total:
 * it never throws and never does I/O, and the same input always gives the same verdict.
 */
export function classify(input: ResponseInput | ErrorInput, options: ClassifyOptions = {}): Verdict {
  let draft: Draft;
  try {
    draft =
      input !== null && typeof input === 'object' && 'phase' in input
        ? classifyError(input)
        : classifyResponse(input as ResponseInput, options);
  } catch {
    draft = { kind: 'unknown', breaker: 'success', reason: 'unclassifiable-input' };
  }
  // Every draft is a fresh object: stamped in place, not copied.
  (draft as { commit?: CommitEvidence }).commit = commitEvidence(draft);
  return draft as Verdict;
}

function classifyError(input: ErrorInput): Draft {
  const code = errorCode(input.error);
  if (input.phase === 'sent') {
    return {
      kind: 'ambiguous',
      breaker: 'failure',
      reason: 'no-answer-after-send',
      ...(code ? { error: code } : {}),
    };
  }
  // A refusal by our own policies is not the vendor failing.
  const local = code?.startsWith('RXGATE_') === true || errorName(input.error) === 'AbortError';
  return {
    kind: 'transient',
    breaker: local ? 'ignore' : 'failure',
    reason: local ? 'refused-locally' : 'not-sent',
  };
}

function classifyResponse(input: ResponseInput, options: ClassifyOptions): Draft {
  const status = input.status;
  const now = options.now ?? Date.now();
  const h = headerReader(input.headers);
  const quota = readQuota(h, now);
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) {
    return withQuota({ kind: 'unknown', breaker: 'success', reason: 'malformed-status' }, quota);
  }
  if (status === 200) return classify200(input.body, status, quota, options);
  if (status === 429) return throttled(status, quota, 'http-429');
  if (status === 503) {
    // Gateways that throttle with 503: a Retry-After and nothing left of the quota.
    if (quota?.retryAfterMs !== undefined && quota.remaining === 0)
      return throttled(status, quota, 'http-503-throttle');
    return withQuota(
      { kind: 'transient', breaker: 'failure', reason: 'http-503', status, ...retry(quota) },
      quota,
    );
  }
  if (status === 408 || status >= 500) {
    return withQuota(
      { kind: 'transient', breaker: 'failure', reason: `http-${status}`, status, ...retry(quota) },
      quota,
    );
  }
  if (status === 401)
    return withQuota({ kind: 'auth-expired', breaker: 'ignore', reason: 'http-401', status }, quota);
  if (status === 404) {
    const body = asObject(input.body);
    const field = typeof body?.field === 'string' ? body.field : undefined;
    const error = body?.error;
    if (error === 'unknown_product' || field === '407-D7') {
      return withQuota(
        {
          kind: 'routing-reject',
          breaker: 'ignore',
          reason: 'unknown-product',
          status,
          mappedRejectCode: '70',
          field: '407-D7',
        },
        quota,
      );
    }
    if (error === 'unknown_route' || field === '104-A4' || field === '101-A1') {
      return withQuota(
        {
          kind: 'routing-reject',
          breaker: 'ignore',
          reason: 'unknown-route',
          status,
          mappedRejectCode: '04',
          field: field ?? '104-A4',
        },
        quota,
      );
    }
    // A 404 that names neither a route nor a product may be our own wrong URL: a person looks.
    return withQuota(
      { kind: 'client-error', breaker: 'ignore', reason: 'http-404-unrecognised', status },
      quota,
    );
  }
  if (status >= 400) {
    const body = asObject(input.body);
    const field = typeof body?.field === 'string' && body.field.length <= 16 ? body.field : undefined;
    return withQuota(
      {
        kind: 'client-error',
        breaker: 'ignore',
        reason: `http-${status}`,
        status,
        ...(field ? { field } : {}),
      },
      quota,
    );
  }
  return withQuota({ kind: 'unknown', breaker: 'success', reason: `http-${status}`, status }, quota);
}

function classify200(
  rawBody: unknown,
  status: number,
  quota: QuotaSignal | undefined,
  options: ClassifyOptions,
): Draft {
  const body = asObject(rawBody);
  if (body === undefined)
    return withQuota({ kind: 'unknown', breaker: 'success', reason: 'malformed-body', status }, quota);
  const catalogue = options.catalogue ?? defaultCatalogue;
  const an = typeof body['112-AN'] === 'string' ? (body['112-AN'] as string).trim().toUpperCase() : undefined;
  const rawCodes = body['511-FB'];
  const codes: RejectCodeInfo[] = [];
  let malformedCodes = false;
  if (rawCodes !== undefined && rawCodes !== null) {
    const list = Array.isArray(rawCodes) ? rawCodes : [rawCodes];
    for (const raw of list) {
      const info = catalogue.lookup(raw);
      if (info === undefined) malformedCodes = true;
      else if (!codes.some((c) => c.code === info.code)) codes.push(info);
    }
  }
  const messages = readMessages(body);
  const coded = {
    rejectCodes: codes,
    priorAuthRequired: codes.some((c) => c.code === '75'),
    ...(an === undefined ? {} : { status112AN: an }),
    ...(messages === undefined ? {} : { messages }),
  };
  if (malformedCodes)
    return withQuota(
      { kind: 'unknown', breaker: 'success', reason: 'malformed-reject-codes', status, ...coded },
      quota,
    );

  if (codes.length > 0) return withQuota(byCodes(codes, coded, status, options), quota);

  switch (an) {
    case 'P':
    case 'A':
    case 'C': {
      const amounts = readAmounts(body);
      if (amounts === undefined)
        return withQuota(
          { kind: 'unknown', breaker: 'success', reason: 'malformed-amount', status, ...coded },
          quota,
        );
      const auth = typeof body['503-F3'] === 'string' ? (body['503-F3'] as string) : undefined;
      return withQuota(
        {
          kind: 'adjudicated',
          breaker: 'success',
          reason: an === 'P' ? 'paid' : an === 'A' ? 'approved' : 'captured',
          status,
          status112AN: an,
          amounts,
          rejectCodes: [],
          priorAuthRequired: false,
          ...(messages === undefined ? {} : { messages }),
          ...(auth === undefined ? {} : { authorizationNumber: auth }),
        },
        quota,
      );
    }
    case 'D':
    case 'Q':
    case 'S': {
      const auth = typeof body['503-F3'] === 'string' ? (body['503-F3'] as string) : undefined;
      return withQuota(
        {
          kind: 'duplicate',
          breaker: 'success',
          reason: `duplicate-${an}`,
          status,
          ...coded,
          amounts: readAmounts(body) ?? {},
          ...(auth === undefined ? {} : { authorizationNumber: auth }),
        },
        quota,
      );
    }
    case 'R':
      // Rejected with no code: nothing says why, so a person looks.
      return withQuota(
        { kind: 'unknown', breaker: 'success', reason: 'rejected-without-codes', status, ...coded },
        quota,
      );
    default:
      // An unknown 112-AN is unknown, never paid (F, PA deferred, included).
      return withQuota(
        {
          kind: 'unknown',
          breaker: 'success',
          reason: an === undefined ? 'missing-112-AN' : 'unknown-112-AN',
          status,
          ...coded,
        },
        quota,
      );
  }
}

type CodedFields = {
  rejectCodes: RejectCodeInfo[];
  priorAuthRequired: boolean;
  status112AN?: string;
  messages?: string[];
};

function byCodes(
  codes: RejectCodeInfo[],
  coded: CodedFields,
  status: number,
  options: ClassifyOptions,
): Draft {
  // One pass over the codes, then decisions by precedence.
  const groups = new Set<RejectGroup>();
  let clinical = false;
  for (const c of codes) {
    groups.add(c.group);
    if (c.code === '79' || c.code === '88') clinical = true;
  }
  const has = (group: RejectGroup) => groups.has(group);
  const host = has('host-transient') || has('host-planned');
  if (host && !clinical) {
    // The vendor's own back end failed. Never trip on an E1 eligibility check (VistA's rule).
    const breaker = options.transactionCode === 'E1' ? 'ignore' : 'failure';
    return {
      kind: 'transient',
      breaker,
      reason: has('host-planned') ? 'host-planned-downtime' : 'host-error',
      status,
      ...coded,
    };
  }
  if (has('duplicate'))
    return { kind: 'duplicate', breaker: 'success', reason: 'duplicate-83', status, ...coded, amounts: {} };
  if (has('terminal') || has('reversal') || (host && clinical)) {
    return {
      kind: 'terminal-reject',
      breaker: 'success',
      reason: coded.priorAuthRequired ? 'prior-auth-required' : 'rejected',
      status,
      ...coded,
    };
  }
  if (has('submitter-fix'))
    return { kind: 'client-error', breaker: 'success', reason: 'submitter-fixable', status, ...coded };
  if (has('unknown') || has('switch-ambiguous'))
    return { kind: 'unknown', breaker: 'success', reason: 'unknown-reject-code', status, ...coded };
  if (has('repair-product'))
    return {
      kind: 'repairable',
      breaker: 'success',
      reason: 'repair-product',
      status,
      repair: 'product',
      ...coded,
    };
  if (has('repair-routing'))
    return {
      kind: 'repairable',
      breaker: 'success',
      reason: 'repair-routing',
      status,
      repair: 'routing',
      ...coded,
    };
  if (has('other-payer'))
    return {
      kind: 'repairable',
      breaker: 'success',
      reason: 'other-payer',
      status,
      repair: 'other-payer',
      ...coded,
    };
  // host-data and retry-later: the vendor answered; come back in hours, not seconds.
  return {
    kind: 'transient',
    breaker: 'ignore',
    reason: has('retry-later') ? 'retry-later' : 'host-data-fault',
    status,
    retryAfterMs: options.deferredRetryMs ?? DEFERRED_MS,
    ...coded,
  };
}

function throttled(status: number, quota: QuotaSignal | undefined, reason: string): Draft {
  // Built field by field: object spread is the slow part of a 429 on the hot path.
  const signal: { -readonly [K in keyof QuotaSignal]: QuotaSignal[K] } = {};
  if (quota?.limit !== undefined) signal.limit = quota.limit;
  if (quota?.remaining !== undefined) signal.remaining = quota.remaining;
  if (quota?.resetSeconds !== undefined) signal.resetSeconds = quota.resetSeconds;
  if (quota?.retryAfterMs !== undefined) signal.retryAfterMs = quota.retryAfterMs;
  if (quota?.policy !== undefined) signal.policy = quota.policy;
  signal.throttled = true;
  const wait = retryAfter(quota);
  return wait === undefined
    ? { kind: 'throttled', breaker: 'ignore', reason, status, quota: signal }
    : { kind: 'throttled', breaker: 'ignore', reason, status, quota: signal, retryAfterMs: wait };
}

function retryAfter(quota: QuotaSignal | undefined): number | undefined {
  if (quota?.retryAfterMs !== undefined) return quota.retryAfterMs;
  if (quota?.remaining === 0 && quota.resetSeconds !== undefined) return quota.resetSeconds * 1000;
  return undefined;
}

function retry(quota: QuotaSignal | undefined): { retryAfterMs?: number } {
  const wait = retryAfter(quota);
  return wait === undefined ? {} : { retryAfterMs: wait };
}

// Verdicts are built fresh here, so the quota is set on them rather than copied into a new
// object. Every verdict but a throttle gets it: a Retry-After on anything else (a maintenance
// 503, a 5xx) speaks of the node, not the quota, so it stays the verdict's `retryAfterMs` and
// is left out of the signal a limiter would pause on.
function withQuota<V extends Draft>(v: V, quota: QuotaSignal | undefined): V {
  if (quota === undefined || v.quota !== undefined) return v;
  let signal = quota;
  if (quota.retryAfterMs !== undefined) {
    const { retryAfterMs: _, ...rest } = quota;
    if (Object.keys(rest).length === 0) return v;
    signal = rest;
  }
  (v as { quota?: QuotaSignal }).quota = signal;
  return v;
}

/**
 * The money fields of an answer: NCPDP code and {@link Amounts} property, in the order they
 * are read. The definition {@link readAmounts} is written from, field by field (held to a loop
 * over this table by a property in properties.test.ts).
 */
export const AMOUNT_FIELDS = [
  ['505-F5', 'patientPay'],
  ['506-F6', 'ingredientCostPaid'],
  ['509-F9', 'totalPaid'],
  ['518-FI', 'copay'],
  ['572-4U', 'coinsurance'],
  ['517-FH', 'deductible'],
] as const satisfies readonly (readonly [string, keyof Amounts])[];

/**
 * @internal The amounts of an answer, each a decimal string, or undefined if one is not.
 * One named read and write per field of {@link AMOUNT_FIELDS}, in its order: a loop over the
 * table is one property access seeing six names (V8's megamorphic keyed load and store).
 */
export function readAmounts(body: Record<string, unknown>): Amounts | undefined {
  const out: { -readonly [K in keyof Amounts]: Amounts[K] } = {};
  let v = body['505-F5'];
  if (v !== undefined && v !== null) {
    if (typeof v !== 'string' || !isDecimal(v)) return undefined;
    out.patientPay = v;
  }
  v = body['506-F6'];
  if (v !== undefined && v !== null) {
    if (typeof v !== 'string' || !isDecimal(v)) return undefined;
    out.ingredientCostPaid = v;
  }
  v = body['509-F9'];
  if (v !== undefined && v !== null) {
    if (typeof v !== 'string' || !isDecimal(v)) return undefined;
    out.totalPaid = v;
  }
  v = body['518-FI'];
  if (v !== undefined && v !== null) {
    if (typeof v !== 'string' || !isDecimal(v)) return undefined;
    out.copay = v;
  }
  v = body['572-4U'];
  if (v !== undefined && v !== null) {
    if (typeof v !== 'string' || !isDecimal(v)) return undefined;
    out.coinsurance = v;
  }
  v = body['517-FH'];
  if (v !== undefined && v !== null) {
    if (typeof v !== 'string' || !isDecimal(v)) return undefined;
    out.deductible = v;
  }
  return out;
}

const MESSAGE_MAX = 200;

/** 504-F4 then 526-FQ (a string or a list), each trimmed text of at most 200 characters. */
function readMessages(body: Record<string, unknown>): string[] | undefined {
  const f4 = body['504-F4'];
  const fq = body['526-FQ'];
  if (f4 === undefined && fq === undefined) return undefined;
  const out: string[] = [];
  for (const v of [f4, ...(Array.isArray(fq) ? fq : [fq])])
    if (typeof v === 'string' && v.trim() !== '') out.push(v.trim().slice(0, MESSAGE_MAX));
  return out.length === 0 ? undefined : out;
}

function asObject(body: unknown): Record<string, unknown> | undefined {
  let b = body;
  if (typeof b === 'string') {
    if (b.length > 1_000_000) return undefined;
    try {
      b = JSON.parse(b);
    } catch {
      return undefined;
    }
  } else if (b instanceof Uint8Array) {
    try {
      b = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(b));
    } catch {
      return undefined;
    }
  }
  return b !== null && typeof b === 'object' && !Array.isArray(b)
    ? (b as Record<string, unknown>)
    : undefined;
}

function errorCode(e: unknown): string | undefined {
  if (e === null || typeof e !== 'object') return undefined;
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && code.length <= 64 ? code : undefined;
}

function errorName(e: unknown): string | undefined {
  if (e === null || typeof e !== 'object') return undefined;
  const name = (e as { name?: unknown }).name;
  return typeof name === 'string' ? name : undefined;
}
