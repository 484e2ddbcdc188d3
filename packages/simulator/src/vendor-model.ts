import type { Clock } from '@rxgate/ratelimit';
import { decimalFixed } from '@rxgate/router';
import { Decimal } from 'decimal.js';
import { readFlatObject } from './flat-json.js';
import { logNormal, type Random, stream } from './random.js';
import type { FaultKind, Scenario } from './scenario.js';

export type NodeName = 'primary' | 'fallback';

const NONE_OPEN: readonly number[] = [];
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

// The claim fields the vendor reads: routing, product, price, and the duplicate rule's fields.
const REVERSED = JSON.stringify({ '112-AN': 'A', '503-F3': 'REVERSED' });
const NOT_REVERSED = JSON.stringify({ '112-AN': 'R', '511-FB': ['87'] });
const REPAIRABLE = JSON.stringify({ '112-AN': 'R', '511-FB': ['21'] });
const READ_FIELDS = [
  '103-A3',
  '101-A1',
  '104-A4',
  '407-D7',
  '409-D9',
  '201-B1',
  '402-D2',
  '403-D3',
  '401-D1',
];

// Copays drawn one in six free, three in six $5, two in six $10.
const COPAYS = ['0.00', '5.00', '5.00', '5.00', '10.00', '10.00'].map((c) => new Decimal(c));

/** What the vendor does with one request. */
export type VendorAction =
  | {
      readonly kind: 'respond';
      readonly status: number;
      readonly headers: Record<string, string>;
      readonly body: string;
      readonly delayMs: number;
    }
  /** The connection is refused: the request never left. */
  | { readonly kind: 'refuse'; readonly delayMs: number }
  /** The connection resets after the request left (committed or not, the client cannot tell). */
  | { readonly kind: 'reset'; readonly delayMs: number }
  /** No answer, ever. */
  | { readonly kind: 'hang' };

export interface VendorRequest {
  readonly path: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string;
}

/**
 * A node's quota. `scale` is the share of it a 429-storm leaves (1 outside one): the headers
 * report the reduced quota, so `remaining` r always means r more requests are admitted now.
 */
interface Quota {
  remaining(now: number, scale: number): number;
  /** Takes one request; false when over quota. */
  take(now: number, scale: number): boolean;
  /** The quota's headers, written into `into` (after what it holds) and returned. */
  headers(now: number, scale: number, into: Record<string, string>): Record<string, string>;
  /** Milliseconds until a request would be allowed again. */
  retryAfterMs(now: number, scale: number): number;
}

// The share of its quota a vendor keeps during a 429-storm.
const STORM_SCALE = 0.25;

/**
 * The vendor of a simulation: its quota, latency, faults, tokens and, above all, its ledger.
 * Every answer is stored by Idempotency-Key and replayed; `payments` counts payments by the
 * claim's *content* — the NCPDP duplicate rule (BIN, PCN, pharmacy NPI, Rx number, fill, date
 * of service) read from the body — across every node, never by the router's key: a claim sent
 * under two keys, or to two nodes, shows 2. Defined once; served in process (virtual time) or
 * as msw handlers (loopback HTTP).
 */
export class VendorModel {
  readonly #s: Scenario;
  readonly #clock: Clock;
  readonly #start: number;
  readonly #random: Random;
  readonly #quota = new Map<NodeName, Quota>();
  // Stored answers by idempotency key: only adjudications (200s) are stored.
  readonly #stores = new Map<string, Map<string, string>>();
  readonly #tokens = new Map<string, number>();
  // Fault windows by kind: most requests meet no fault, and find that out in one lookup.
  readonly #byKind = new Map<FaultKind, number[]>();
  // Where no fault window is open, a request looks up no fault at all.
  readonly #windows: ReadonlyArray<readonly [number, number]>;
  readonly #unknownRoutes: ReadonlySet<string>;
  readonly #unknownProducts: ReadonlySet<string>;
  readonly #repairable: ReadonlySet<string>;
  readonly #rejects: ReadonlyArray<readonly [string, number]>;
  // The answer of each reject code, made once: the same text for every claim it rejects.
  readonly #rejectAnswers: ReadonlyMap<string, string>;
  #tokenSeq = 0;
  /** Payments by claim content (BIN|PCN|NPI|Rx|fill|date of service), on every node. */
  readonly payments = new Map<string, number>();
  /**
   * Reversals accepted by content: a payment stands while paid exceeds reversed. Kept apart
   * from `payments` (rare, so small) rather than a second map of every paid claim: a day's
   * 500,000-entry map cost a cache miss or more each time it was touched.
   */
  readonly #reversed = new Map<string, number>();
  /** Identities with two payments standing at once (a rebill after a reversal is one). */
  readonly paidTwice = new Set<string>();
  /** Reversals accepted. */
  reversals = 0;
  /** Times each fault window fired. */
  readonly faultsFired: number[];
  /** Answers by HTTP status (network failures as `reset`, `refused`, `hang`). */
  readonly statuses = new Map<string, number>();
  requests = 0;

  constructor(scenario: Scenario, clock: Clock, start: number) {
    this.#s = scenario;
    this.#clock = clock;
    this.#start = start;
    this.#random = stream(scenario.seed, 'vendor');
    this.faultsFired = scenario.faults.map(() => 0);
    for (const [i, f] of scenario.faults.entries())
      this.#byKind.set(f.kind, [...(this.#byKind.get(f.kind) ?? []), i]);
    for (const node of ['primary', 'fallback'] as const)
      this.#quota.set(node, makeQuota(scenario.vendor.quota, start));
    this.#windows = scenario.faults.map((f) => [f.startMs, f.endMs] as const);
    this.#unknownRoutes = new Set(scenario.vendor.unknownRoutes);
    this.#unknownProducts = new Set(scenario.vendor.unknownProducts);
    this.#repairable = new Set(scenario.vendor.repairable);
    this.#rejects = Object.entries(scenario.vendor.rejects);
    this.#rejectAnswers = new Map(
      this.#rejects.map(([code]) => [code, JSON.stringify({ '112-AN': 'R', '511-FB': [code] })]),
    );
  }

  // The fault windows open at t, in schedule order: none for most requests, which then look
  // up no fault at all (a credential expiry's after-effect is looked up apart).
  #openAt(t: number): readonly number[] {
    let open: number[] | undefined;
    for (let i = 0; i < this.#windows.length; i++) {
      const [from, to] = this.#windows[i]!;
      if (t < from || t >= to) continue;
      if (open === undefined) open = [i];
      else open.push(i);
    }
    return open ?? NONE_OPEN;
  }

  /** A client-side fault window (a restart, a resubmission) that the runner carried out. */
  fired(window: number): void {
    this.faultsFired[window]!++;
  }

  /** Requests the node would still take now. */
  remaining(node: NodeName): number {
    const now = this.#clock.now();
    return this.#quota.get(node)!.remaining(now, this.#stormScale(node, now - this.#start));
  }

  // The quota a storm leaves at t, drawing nothing: a storm is the vendor's state, not a per-request fault.
  #stormScale(node: NodeName, t: number): number {
    for (const i of this.#byKind.get('429-storm') ?? []) {
      const f = this.#s.faults[i]!;
      if (t >= f.startMs && t < f.endMs && (f.node === 'all' || f.node === node)) return STORM_SCALE;
    }
    return 1;
  }

  /** The quota rate in requests per second. */
  get quotaPerSecond(): number {
    const q = this.#s.vendor.quota;
    return q.kind === 'window' ? (q.limit * 1000) / q.windowMs : q.ratePerSecond;
  }

  handle(node: NodeName, req: VendorRequest): VendorAction {
    this.requests++;
    const now = this.#clock.now();
    const t = now - this.#start;
    const v = this.#s.vendor;
    const open = this.#openAt(t);
    const spike = this.#fault('latency-spike', node, open) !== undefined ? 5 : 1;
    const delayMs = logNormal(this.#random, v.latency.medianMs, v.latency.p99Ms) * spike;

    if (this.#fault('outage', node, open) !== undefined)
      return this.#net('refused', { kind: 'refuse', delayMs: Math.min(delayMs, 5) });

    if (req.path.endsWith('/oauth/token')) {
      if (
        !req.body.includes('grant_type=client_credentials') ||
        !req.headers.authorization?.startsWith('Basic ')
      )
        return this.#json(401, { error: 'invalid_client' }, NO_HEADERS, delayMs);
      const token = `tok-${node}-${++this.#tokenSeq}`;
      const ttl = v.tokenTtlSeconds ?? 300;
      this.#tokens.set(token, now + ttl * 1000);
      return this.#json(
        200,
        { access_token: token, token_type: 'Bearer', expires_in: ttl },
        NO_HEADERS,
        delayMs,
      );
    }
    if (!req.path.endsWith('/adjudicate'))
      return this.#json(404, { error: 'not_found' }, NO_HEADERS, delayMs);

    const maintenance = this.#fault('503-maintenance', node, open);
    if (maintenance !== undefined) {
      const endsIn = this.#s.faults[maintenance]!.endMs - t;
      return this.#json(
        503,
        { error: 'maintenance' },
        { 'retry-after': String(Math.max(1, Math.ceil(endsIn / 1000))) },
        delayMs,
      );
    }
    if (v.tokenTtlSeconds !== undefined) {
      const authorization = req.headers.authorization ?? '';
      const token = authorization.startsWith('Bearer ') ? authorization.slice(7) : authorization;
      const expiresAt = this.#tokens.get(token);
      const revoked = this.#revokedBefore(node, t);
      const issuedAt = expiresAt === undefined ? 0 : expiresAt - v.tokenTtlSeconds * 1000 - this.#start;
      if (expiresAt === undefined || now >= expiresAt || (revoked !== undefined && issuedAt < revoked))
        return this.#json(401, { error: 'token_expired' }, NO_HEADERS, delayMs);
    }

    // The quota: a storm shrinks it; 503-throttle answers the excess with a 503.
    const quota = this.#quota.get(node)!;
    const storm = this.#stormScale(node, t);
    if (storm !== 1) this.#fault('429-storm', node, open);
    if (!quota.take(now, storm)) {
      const wait = quota.retryAfterMs(now, storm);
      const retryAfter =
        v.retryAfter === 'http-date'
          ? new Date(now + wait + 999).toUTCString()
          : String(Math.max(1, Math.ceil(wait / 1000)));
      const headers = {
        ...quota.headers(now, storm, {}),
        'retry-after': retryAfter,
        date: new Date(now).toUTCString(),
      };
      return this.#json(
        this.#fault('503-throttle', node, open) !== undefined ? 503 : 429,
        {},
        headers,
        delayMs,
      );
    }
    // The answer's headers, content type first: the 200 answer sends them as they are (the
    // error answers' own copy puts the content type first again, the same headers in the same order).
    const quotaHeaders = quota.headers(now, storm, { 'content-type': 'application/json' });

    const key = req.headers['idempotency-key'] ?? '';
    const store = this.#storeOf(node);
    const stored = store.get(key);
    const gateway = this.#fault('gateway-timeout', node, open) !== undefined;
    if (stored !== undefined && gateway)
      return this.#json(this.#random() < 0.7 ? 504 : 502, { error: 'gateway' }, quotaHeaders, delayMs);
    if (stored !== undefined) {
      this.#count('200');
      return {
        kind: 'respond',
        status: 200,
        headers: { 'content-type': 'application/json', 'idempotent-replayed': 'true', ...quotaHeaders },
        body: stored,
        delayMs,
      };
    }

    if (this.#fault('timeout', node, open) !== undefined) return this.#net('hang', { kind: 'hang' });
    if (this.#fault('reset', node, open) !== undefined) return this.#net('reset', { kind: 'reset', delayMs });
    if (this.#fault('server-error', node, open) !== undefined)
      return this.#json(
        [500, 502, 504][Math.floor(this.#random() * 3)]!,
        { error: 'server' },
        quotaHeaders,
        delayMs,
      );
    if (this.#fault('host-error', node, open) !== undefined)
      return this.#json(
        200,
        { '112-AN': 'R', '511-FB': [this.#random() < 0.5 ? '92' : '95'] },
        quotaHeaders,
        delayMs,
      );

    // The four fields it needs, read without building the claim; anything unusual goes to JSON.parse.
    let claim: Readonly<Record<string, unknown>> | undefined = readFlatObject(req.body, READ_FIELDS);
    if (claim === undefined) {
      try {
        claim = JSON.parse(req.body) as Record<string, unknown>;
      } catch {
        return this.#json(400, { error: 'invalid', field: '(body)' }, quotaHeaders, delayMs);
      }
      if (typeof claim !== 'object' || claim === null)
        return this.#json(400, { error: 'invalid', field: '(body)' }, quotaHeaders, delayMs);
    }
    if (this.#unknownRoutes.size > 0 && this.#unknownRoutes.has(`${claim['101-A1']}/${claim['104-A4']}`))
      return this.#json(404, { error: 'unknown_route', field: '104-A4' }, quotaHeaders, delayMs);
    const productId = String(claim['407-D7']);
    if (this.#unknownProducts.has(productId))
      return this.#json(404, { error: 'unknown_product', field: '407-D7' }, quotaHeaders, delayMs);

    const identity = paymentIdentity(claim);
    let answer: string;
    if (claim['103-A3'] === 'B2') {
      // A reversal undoes a payment by content; of a claim not paid: 87, reversal not processed.
      const reversed = this.#reversed.get(identity) ?? 0;
      if ((this.payments.get(identity) ?? 0) > reversed) {
        this.#reversed.set(identity, reversed + 1);
        this.reversals++;
        answer = REVERSED;
      } else answer = NOT_REVERSED;
    } else {
      answer = this.#adjudicate(claim, productId);
      if (answer.includes('"112-AN":"P"')) {
        const paid = (this.payments.get(identity) ?? 0) + 1;
        this.payments.set(identity, paid);
        if (paid - (this.#reversed.get(identity) ?? 0) > 1) this.paidTwice.add(identity);
      }
    }
    store.set(key, answer);
    // It paid (or rejected); its gateway gave up waiting and says so.
    if (gateway)
      return this.#json(this.#random() < 0.7 ? 504 : 502, { error: 'gateway' }, quotaHeaders, delayMs);
    // It paid; now it may lose the answer.
    if (this.#fault('ambiguous-commit', node, open) !== undefined)
      return this.#net('reset', this.#random() < 0.5 ? { kind: 'reset', delayMs } : { kind: 'hang' });
    this.#count('200');
    return {
      kind: 'respond',
      status: 200,
      headers: quotaHeaders,
      body: answer,
      delayMs,
    };
  }

  #adjudicate(claim: Readonly<Record<string, unknown>>, productId: string): string {
    if (this.#repairable.has(productId)) return REPAIRABLE;
    const x = this.#random();
    let acc = 0;
    for (const [code, p] of this.#rejects) {
      acc += p;
      if (x < acc) return this.#rejectAnswers.get(code)!;
    }
    // Paid: amounts computed in decimal, sent as decimal strings.
    const cost = new Decimal(String(claim['409-D9'] ?? '0'));
    // The smaller of the two, compared in place (`Decimal.min` copies both arguments first).
    const drawn = COPAYS[Math.floor(this.#random() * COPAYS.length)]!;
    const copay = cost.lessThan(drawn) ? cost : drawn;
    return JSON.stringify({
      '112-AN': 'P',
      '505-F5': decimalFixed(copay, 2),
      '506-F6': decimalFixed(cost, 2),
      '509-F9': decimalFixed(cost.minus(copay), 2),
      '503-F3': `A${Math.floor(this.#random() * 1e9)
        .toString(36)
        .toUpperCase()}`,
    });
  }

  #json(status: number, body: unknown, headers: Record<string, string>, delayMs: number): VendorAction {
    this.#count(String(status));
    return {
      kind: 'respond',
      status,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      delayMs,
    };
  }

  /** The first open window of `kind` on `node` that fires (drawing on its probability), if any. */
  #fault(kind: FaultKind, node: NodeName, open: readonly number[]): number | undefined {
    const faults = this.#s.faults;
    for (const i of open) {
      const f = faults[i]!;
      if (f.kind !== kind || (f.node !== 'all' && f.node !== node)) continue;
      if (f.probability < 1 && this.#random() >= f.probability) continue;
      this.faultsFired[i]!++;
      return i;
    }
    return undefined;
  }

  // Credential expiry: tokens issued before the window's start are refused during and after it.
  #revokedBefore(node: NodeName, t: number): number | undefined {
    let at: number | undefined;
    for (const i of this.#byKind.get('credential-expiry') ?? []) {
      const f = this.#s.faults[i]!;
      if (t >= f.startMs && (f.node === 'all' || f.node === node)) {
        at = Math.max(at ?? 0, f.startMs);
        if (t < f.endMs) this.faultsFired[i]!++;
      }
    }
    return at;
  }

  #storeOf(node: NodeName): Map<string, string> {
    const name = this.#s.nodes.sharedIdempotency ? '*' : node;
    let s = this.#stores.get(name);
    if (s === undefined) {
      s = new Map();
      this.#stores.set(name, s);
    }
    return s;
  }

  #count(status: string): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
  }

  #net(status: string, action: VendorAction): VendorAction {
    this.#count(status);
    return action;
  }
}

/**
 * The NCPDP duplicate rule's fields of a claim (BIN|PCN|NPI|Rx|fill|date of service), the key
 * of the payments by content: `${a}|${b}|…`, joined (one flat string in the map of payments kept
 * all day, not the tree of pieces of a template; a missing field is `undefined`, as there).
 */
export function paymentIdentity(claim: Readonly<Record<string, unknown>>): string {
  return [
    claim['101-A1'] ?? String(claim['101-A1']),
    claim['104-A4'] ?? String(claim['104-A4']),
    claim['201-B1'] ?? String(claim['201-B1']),
    claim['402-D2'] ?? String(claim['402-D2']),
    claim['403-D3'] ?? String(claim['403-D3']),
    claim['401-D1'] ?? String(claim['401-D1']),
  ].join('|');
}

function makeQuota(q: Scenario['vendor']['quota'], start: number): Quota {
  if (q.kind === 'window') {
    let windowStart = start;
    let used = 0;
    const roll = (now: number) => {
      if (now >= windowStart + q.windowMs) {
        windowStart += Math.floor((now - windowStart) / q.windowMs) * q.windowMs;
        used = 0;
      }
    };
    const limitOf = (scale: number) => Math.max(1, Math.floor(q.limit * scale));
    const resetSeconds = (now: number) => (windowStart + q.windowMs - now) / 1000;
    // The policy header changes only with the limit (a storm's): made again only then.
    let policyLimit = -1;
    let policy = '';
    return {
      remaining: (now, scale) => {
        roll(now);
        return Math.max(0, limitOf(scale) - used);
      },
      take: (now, scale) => {
        roll(now);
        if (used >= limitOf(scale)) return false;
        used++;
        return true;
      },
      headers: (now, scale, into) => {
        roll(now);
        const limit = limitOf(scale);
        const remaining = Math.max(0, limit - used);
        const reset = Math.max(0, Math.ceil(resetSeconds(now)));
        into['x-ratelimit-limit'] = String(limit);
        into['x-ratelimit-remaining'] = String(remaining);
        // Fractional seconds, as vendors with short windows send them; IETF `t` is whole seconds.
        into['x-ratelimit-reset'] = resetSeconds(now).toFixed(3);
        if (limit !== policyLimit) {
          policyLimit = limit;
          policy = `"default";q=${limit};w=${Math.max(1, Math.round(q.windowMs / 1000))}`;
        }
        into['ratelimit-policy'] = policy;
        into.ratelimit = `"default";r=${remaining};t=${reset}`;
        return into;
      },
      retryAfterMs: (now) => Math.max(0, windowStart + q.windowMs - now),
    };
  }
  // A bucket in a storm is a smaller bucket filling more slowly.
  let tokens = q.burst;
  let last = start;
  const capacity = (scale: number) => Math.max(1, Math.floor(q.burst * scale));
  const refill = (now: number, scale: number) => {
    tokens = Math.min(capacity(scale), tokens + ((now - last) / 1000) * q.ratePerSecond * scale);
    last = now;
  };
  return {
    remaining: (now, scale) => {
      refill(now, scale);
      return Math.floor(tokens);
    },
    take: (now, scale) => {
      refill(now, scale);
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
    headers: (now, scale, into) => {
      refill(now, scale);
      const cap = capacity(scale);
      into['x-ratelimit-limit'] = String(cap);
      into['x-ratelimit-remaining'] = String(Math.floor(tokens));
      into['x-ratelimit-reset'] = String(Math.ceil((cap - tokens) / (q.ratePerSecond * scale)));
      return into;
    },
    retryAfterMs: (_now, scale) => Math.max(0, ((1 - tokens) / (q.ratePerSecond * scale)) * 1000),
  };
}
