import {
  type BreakerEvent,
  type Breakers,
  type CircuitBreaker,
  createBreakers,
  type Permit,
} from '@rxgate/breaker';
import { type Catalogue, classify, type Verdict } from '@rxgate/classifier';
import {
  type Clock,
  createLimiter,
  isDeadlineExceededError,
  type Lease,
  type LimiterAcquireOptions,
  type QuotaSignal,
  systemClock,
  type TimerHandle,
} from '@rxgate/ratelimit';
import { Decimal } from 'decimal.js';
import { type AuditLog, type AuditRecord, MemoryAuditLog } from './audit.js';
import { type CanonicalClaim, decimalFixed, safeParseClaim, wireBody } from './claim.js';
import type { Credentials } from './credentials.js';
import type { Crosswalk } from './crosswalk.js';
import { type DeadLetterQueue, MemoryDeadLetterQueue } from './dead-letters.js';
import { isTransportError, RouterClosedError, RouterConfigError } from './errors.js';
import { idempotencyKeyer, repairedKey } from './idempotency.js';
import type { Outcome, OutcomeBase, PaidAmounts } from './outcome.js';
import { ClaimSignal } from './signal.js';
import { sleep } from './sleep.js';
import {
  type Ledger,
  type LedgerEntry,
  MemoryLedger,
  MemoryNegativeCache,
  type NegativeCache,
} from './stores.js';
import {
  type CounterHandle,
  type GaugeHandle,
  type HistogramHandle,
  type Logger,
  labels,
  Metrics,
  type RouterEvent,
  safeLogger,
} from './telemetry.js';
import { type Transport, undiciTransport, type WireResponse } from './transport.js';

export type Lane = 'pos' | 'batch';

/** What the router needs of a limiter: `createLimiter`'s, or the shared Redis one (`@rxgate/ratelimit/redis`). */
export interface RouterLimiter {
  acquire(options: LimiterAcquireOptions): Promise<Lease>;
  /** Admits now or returns undefined, never queueing; the router tries it first when present. */
  tryAcquire?(options: { readonly key: string; readonly lane?: Lane }): Lease | undefined;
  observe(signal: QuotaSignal, options?: { readonly key?: string }): void;
}

/** A vendor node. The first of `nodes` is the primary, the second the fallback. */
export interface RouterNode {
  readonly name: string;
  /** Base URL of the vendor contract (`/adjudicate`, `/oauth/token` under it). */
  readonly url: string;
  /** This node's own quota; the router-level `limiter` when absent. */
  readonly limiter?: RouterLimiter;
}

/** Deadline budgets in milliseconds by lane and segment (the SLA of a claim). */
export type LaneBudgets = Readonly<
  Record<Lane, Readonly<Record<string, number>> & { readonly default: number }>
>;

export interface RetryOptions {
  /** Transient verdicts retried on one node before failing over. @default 2 */
  readonly transientRetries?: number;
  /** Ambiguous verdicts retried on one node (same idempotency key). @default 2 */
  readonly ambiguousRetries?: number;
  /** Full-jitter backoff base. @default 50 */
  readonly baseMs?: number;
  /** Backoff cap per lane. @default { pos: 400, batch: 30_000 } */
  readonly capMs?: Readonly<Record<Lane, number>>;
}

export interface RouterOptions {
  /** One or two nodes: primary first, then the fallback. */
  readonly nodes: readonly RouterNode[];
  /** Whether the nodes share one idempotency store (an ambiguous claim may then fail over). @default false */
  readonly sharedIdempotency?: boolean;
  /** Whether the fallback's state is current; failover happens only when it says so. @default () => true */
  readonly parity?: (node: string) => boolean;
  /** The vendor quota. @default 10/s, burst 20 */
  readonly limiter?: RouterLimiter;
  /** Breakers keyed `node:segment`. @default time-window 50% over 30 s, min 10 calls */
  readonly breakers?: Breakers;
  /** Bearer tokens; none means no Authorization header. */
  readonly credentials?: Credentials;
  /** The NDC → GPI snapshot used to repair 21s. */
  readonly crosswalk?: Crosswalk;
  readonly audit?: AuditLog;
  readonly deadLetters?: DeadLetterQueue;
  readonly ledger?: Ledger;
  readonly negativeCache?: NegativeCache;
  /** @default 600_000 (10 min) */
  readonly negativeCacheTtlMs?: number;
  /** @default undiciTransport() */
  readonly transport?: Transport;
  /** Secret of the idempotency HMAC (32+ random bytes recommended). Keep it stable across restarts and shared by every process. */
  readonly idempotencySecret: string;
  /** @default pos: retail 800, specialty 1200; batch: 3_600_000 */
  readonly lanes?: LaneBudgets;
  readonly retry?: RetryOptions;
  /** Reject-code catalogue for classification (a payer's overrides). */
  readonly catalogue?: Catalogue;
  readonly clock?: Clock;
  /** Random source in [0, 1) for backoff jitter and correlation ids. @default Math.random */
  readonly random?: () => number;
  readonly logger?: Logger;
  readonly onEvent?: (event: RouterEvent) => void;
  readonly metrics?: Metrics;
}

export interface SubmitOptions {
  /** @default 'pos' */
  readonly lane?: Lane;
  /** Segment for the deadline budget and the breaker key (`retail`, `specialty`, …). @default 'retail' */
  readonly segment?: string;
  /** Aborting ends the claim as dead-lettered (`aborted`). */
  readonly signal?: AbortSignal;
  /** Override the deadline (absolute, router clock). */
  readonly deadline?: number;
}

export interface Router {
  /** Runs one claim to exactly one outcome. Never rejects (bad input is an `invalid` outcome). */
  submit(raw: unknown, options?: SubmitOptions): Promise<Outcome>;
  /** Waits for the claims in flight, then closes pools and the audit log. */
  close(): Promise<void>;
  readonly metrics: Metrics;
  /** Claims in flight. */
  readonly inFlight: number;
}

// A Retry-After at least this long on a fault is a maintenance window, not a blip.
const MAINTENANCE_MS = 1000;

const DEFAULT_LANES: LaneBudgets = {
  pos: { default: 800, retail: 800, specialty: 1200 },
  batch: { default: 3_600_000 },
};

/** One submission's state on its way to an outcome. */
class ClaimRun {
  readonly signal = new ClaimSignal();
  /** The deadline timer: armed only before the claim first waits on something. */
  timer: TimerHandle | undefined = undefined;
  path: string[] = [];
  attempts = 0;
  snapshotVersion: string | undefined = undefined;
  constructor(
    readonly claim: CanonicalClaim,
    readonly claimKey: string,
    readonly correlationId: string,
    readonly lane: Lane,
    readonly segment: string,
    readonly start: number,
    readonly deadline: number,
    readonly payer: string,
  ) {}
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
// An outcome before the fields every outcome carries are filled in.
type OutcomeBody = Outcome extends infer O ? (O extends Outcome ? Omit<O, keyof OutcomeBase> : never) : never;

/** The metric handles of one node, made once. */
interface NodeMetrics {
  readonly attempts: Map<string, CounterHandle>;
  readonly latency: HistogramHandle;
  readonly remaining: GaugeHandle;
  readonly throttled: CounterHandle;
  readonly backoffs: CounterHandle;
}
/** The metric handles of one lane. */
interface LaneMetrics {
  readonly outcomes: Map<string, CounterHandle>;
  readonly latency: HistogramHandle;
  readonly waits: HistogramHandle;
}

/**
 * Creates the router: parse, ledger, negative cache, then attempts within the claim's
 * deadline (limiter, breaker, transport, classify, decide) until exactly one outcome.
 */
export function createRouter(options: RouterOptions): Router {
  const nodes = options.nodes;
  if (!Array.isArray(nodes) || nodes.length < 1 || nodes.length > 2)
    throw new RouterConfigError('nodes', 'must hold one or two nodes');
  for (const [i, n] of nodes.entries()) {
    if (typeof n?.name !== 'string' || n.name === '')
      throw new RouterConfigError(`nodes.${i}.name`, 'must be a non-empty string');
    try {
      new URL(n.url);
    } catch {
      throw new RouterConfigError(`nodes.${i}.url`, 'must be an absolute URL');
    }
  }
  // Required: without a stable secret the key would change across restarts. Use 32 random
  // bytes or more in production; a short one keeps keys stable but weakens the HMAC.
  if (typeof options.idempotencySecret !== 'string' || options.idempotencySecret === '') {
    throw new RouterConfigError('idempotencySecret', 'must be a non-empty string, the same in every process');
  }
  const keyOf = idempotencyKeyer(options.idempotencySecret);
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const limiter = options.limiter ?? createLimiter({ account: { ratePerSecond: 10, burst: 20 }, clock });
  const breakers =
    options.breakers ??
    createBreakers({
      clock,
      random,
      defaults: {
        policy: { kind: 'time-window', windowMs: 30_000, minimumCalls: 10, failureRate: 0.5 },
        openDuration: 5_000,
      },
    });
  const transport = options.transport ?? undiciTransport();
  const audit = options.audit ?? new MemoryAuditLog();
  const deadLetters = options.deadLetters ?? new MemoryDeadLetterQueue();
  const ledger = options.ledger ?? new MemoryLedger();
  const negativeCache = options.negativeCache ?? new MemoryNegativeCache(clock);
  const negativeTtl = options.negativeCacheTtlMs ?? 600_000;
  const lanes = options.lanes ?? DEFAULT_LANES;
  for (const lane of ['pos', 'batch'] as const) {
    const d = lanes[lane]?.default;
    if (typeof d !== 'number' || !(d > 0))
      throw new RouterConfigError(`lanes.${lane}.default`, 'must be a positive number of milliseconds');
  }
  const parity = options.parity ?? (() => true);
  const shared = options.sharedIdempotency === true;
  const retry = {
    transient: options.retry?.transientRetries ?? 2,
    ambiguous: options.retry?.ambiguousRetries ?? 2,
    baseMs: options.retry?.baseMs ?? 50,
    capMs: options.retry?.capMs ?? { pos: 400, batch: 30_000 },
  };
  const classifyOptions = options.catalogue ? { catalogue: options.catalogue } : {};
  const metrics = options.metrics ?? new Metrics();
  const log = safeLogger(options.logger);
  const onEvent = options.onEvent;
  // Nodes that announced downtime (503 + Retry-After), by index: until when.
  const downUntil = nodes.map(() => 0);
  let inFlight = 0;
  let drained: (() => void) | undefined;
  let closed = false;
  let sequence = 0;
  const correlationPrefix = `${Math.floor(random() * 0xffffff)
    .toString(16)
    .padStart(6, '0')}-`;

  const nodeMetrics: NodeMetrics[] = nodes.map((n) => ({
    attempts: new Map(),
    latency: metrics.histogram('rxgate_attempt_latency_ms', labels(n.name, undefined)),
    remaining: metrics.gauge('rxgate_remaining_quota', labels(n.name, undefined)),
    throttled: metrics.counter('rxgate_throttled_total', labels(n.name, undefined)),
    backoffs: metrics.counter('rxgate_backoffs_total', labels(n.name, undefined)),
  }));
  const laneMetrics = (lane: Lane): LaneMetrics => ({
    outcomes: new Map(),
    latency: metrics.histogram('rxgate_claim_latency_ms', labels(undefined, lane)),
    waits: metrics.histogram('rxgate_wait_ms', labels(undefined, lane)),
  });
  const byLane: Record<Lane, LaneMetrics> = { pos: laneMetrics('pos'), batch: laneMetrics('batch') };
  const attemptCounter = (i: number, kind: string): CounterHandle => {
    const m = nodeMetrics[i]!.attempts;
    let c = m.get(kind);
    if (c === undefined) {
      c = metrics.counter('rxgate_attempts_total', labels(nodes[i]!.name, undefined, kind));
      m.set(kind, c);
    }
    return c;
  };
  const outcomeCounter = (lane: Lane, kind: string): CounterHandle => {
    const m = byLane[lane].outcomes;
    let c = m.get(kind);
    if (c === undefined) {
      c = metrics.counter('rxgate_outcomes_total', labels(undefined, lane, kind));
      m.set(kind, c);
    }
    return c;
  };

  const limiterOf = (i: number): RouterLimiter => nodes[i]!.limiter ?? limiter;
  // Breakers by node and segment, watched once each.
  const breakerCache: Array<Map<string, CircuitBreaker>> = nodes.map(() => new Map());
  const breakerOf = (i: number, segment: string): CircuitBreaker => {
    let b = breakerCache[i]!.get(segment);
    if (b !== undefined) return b;
    const key = `${nodes[i]!.name}:${segment}`;
    b = breakers.get(key);
    breakerCache[i]!.set(segment, b);
    const transitions = new Map<string, CounterHandle>();
    b.on((e: BreakerEvent) => {
      if (e.type !== 'state-change') return;
      let c = transitions.get(e.to);
      if (c === undefined) {
        c = metrics.counter(
          'rxgate_breaker_transitions_total',
          labels(nodes[i]!.name, undefined, undefined, segment, e.to),
        );
        transitions.set(e.to, c);
      }
      c.inc();
      onEvent?.({ type: 'breaker', key, from: e.from, to: e.to, reason: e.reason, at: e.at });
      log.info({ breaker: key, from: e.from, to: e.to, reason: e.reason }, 'breaker state change');
    });
    return b;
  };
  const usable = (i: number) => i < nodes.length && (i === 0 || parity(nodes[i]!.name));

  // Arms the claim's deadline before its first wait: a claim that never waits costs no timer.
  const arm = (r: ClaimRun): void => {
    if (r.timer !== undefined || r.signal.aborted) return;
    const signal = r.signal;
    r.timer = clock.setTimer(Math.max(0, r.deadline - clock.now()), () => signal.abort());
  };

  /** Fills in the fields every outcome carries. */
  const finish = (r: ClaimRun, body: OutcomeBody, now = clock.now()): Outcome => {
    const o = body as Mutable<Outcome>;
    o.claimKey = r.claimKey;
    o.correlationId = r.correlationId;
    o.path = r.path;
    o.attempts = r.attempts;
    o.elapsedMs = now - r.start;
    if (r.snapshotVersion !== undefined) o.snapshotVersion = r.snapshotVersion;
    return o;
  };

  const decide = (
    r: ClaimRun,
    decision: string,
    extra?: Partial<Mutable<AuditRecord>>,
  ): void | Promise<void> => {
    r.path.push(decision);
    if (onEvent !== undefined)
      onEvent({
        type: 'decision',
        correlationId: r.correlationId,
        decision,
        ...(extra?.waitMs === undefined ? {} : { waitMs: extra.waitMs }),
      });
    const record: Mutable<AuditRecord> = {
      at: clock.now(),
      correlationId: r.correlationId,
      claimKey: r.claimKey,
      type: 'decision',
      decision,
      lane: r.lane,
    };
    if (extra !== undefined) Object.assign(record, extra);
    return audit.append(record);
  };

  const deadLetter = async (r: ClaimRun, reason: string, pinned?: number): Promise<Outcome> => {
    // A pos claim that runs out of time is handed to the batch lane, never held at the counter.
    await deadLetters.put({
      claimKey: r.claimKey,
      correlationId: r.correlationId,
      reason,
      lane: 'batch',
      at: clock.now(),
      claim: r.claim,
      ...(pinned === undefined ? {} : { pinnedNode: nodes[pinned]!.name }),
    });
    return finish(r, { kind: 'dead-lettered', reason, lane: 'batch' });
  };

  // Waits within the deadline; false when the wait would miss it.
  const wait = async (r: ClaimRun, ms: number, why: string): Promise<boolean> => {
    if (clock.now() + ms > r.deadline) return false;
    byLane[r.lane].waits.observe(ms);
    const d = decide(r, `wait:${why}`, { waitMs: ms });
    if (d) await d;
    arm(r);
    await sleep(clock, ms, r.signal);
    return !r.signal.aborted;
  };

  async function run(r: ClaimRun): Promise<Outcome> {
    const { claim, lane, segment } = r;

    // Negative cache: a route or product the vendor does not know costs no quota.
    // The stores may answer synchronously: then nothing waits a turn for them.
    for (const code of NEGATIVE_CODES) {
      const known = negativeCache.has(negativeKey(code, r.payer, claim.productId));
      if (known === true || (known !== false && (await known))) {
        await decide(r, `negative-cache:${NEGATIVE[code].what}`);
        return finish(r, negativeReject(code, true));
      }
    }

    let node = 0;
    let pinned: number | undefined;
    let requestKey = r.claimKey;
    let productId = claim.productId;
    let body: string | undefined;
    let repaired = false;
    let authReplayed = false;
    let transientOnNode = 0;
    let ambiguousOnNode = 0;
    let backoffs = 0;

    const failover = async (reason: string): Promise<boolean> => {
      const other = node === 0 ? 1 : 0;
      if (pinned !== undefined || other === 0 || !usable(other)) return false;
      node = other;
      transientOnNode = 0;
      ambiguousOnNode = 0;
      await decide(r, `failover:${reason}`, { node: nodes[node]!.name });
      return true;
    };
    const backoff = () => random() * Math.min(retry.capMs[lane], retry.baseMs * 2 ** backoffs++);

    for (;;) {
      let now = clock.now();
      if (r.signal.aborted) return deadLetter(r, now >= r.deadline ? 'deadline' : 'aborted', pinned);
      if (now >= r.deadline) return deadLetter(r, 'deadline', pinned);

      // The primary's breaker is open, or it said it is down for maintenance: go to the fallback now, when allowed.
      if (pinned === undefined && node === 0 && nodes.length > 1) {
        if (breakerOf(0, segment).state === 'open') await failover('breaker-open');
        else if (downUntil[0]! > now) await failover('maintenance');
      }
      const current = pinned ?? node;
      const nodeName = nodes[current]!.name;
      const nodeLimiter = limiterOf(current);

      // Admitted now when the limiter can say so synchronously; otherwise wait in its queue.
      let lease = nodeLimiter.tryAcquire?.({ key: r.payer, lane });
      if (lease === undefined) {
        arm(r);
        try {
          lease = await nodeLimiter.acquire({ key: r.payer, lane, deadline: r.deadline, signal: r.signal });
        } catch (e) {
          if (isDeadlineExceededError(e)) {
            await decide(r, 'limiter:deadline', { waitMs: e.predictedWaitMs, node: nodeName });
            return deadLetter(r, 'limiter-deadline', pinned);
          }
          return deadLetter(r, r.signal.aborted ? 'aborted' : 'limiter-refused', pinned);
        }
        now = clock.now();
      }

      let token: string | undefined;
      if (options.credentials) {
        arm(r);
        try {
          token = await options.credentials.token(nodes[current]!, r.signal);
        } catch {
          lease.release();
          await decide(r, 'credentials:unavailable', { node: nodeName });
          if (++transientOnNode <= retry.transient && (await wait(r, backoff(), 'credentials'))) continue;
          if (await failover('credentials')) continue;
          return deadLetter(r, 'credentials-unavailable', pinned);
        }
        now = clock.now();
      }

      const permitOrRejection = breakerOf(current, segment).tryAcquire();
      if (permitOrRejection.kind === 'rejected') {
        lease.release();
        await decide(r, 'breaker:rejected', { node: nodeName, waitMs: permitOrRejection.retryAfterMs });
        if (await failover('breaker-open')) continue;
        // Open: wait until the next probe. Half-open with every probe slot taken (0): back off.
        const ms = permitOrRejection.retryAfterMs > 0 ? permitOrRejection.retryAfterMs : backoff();
        if (await wait(r, ms, 'breaker')) continue;
        return deadLetter(r, 'breaker-open', pinned);
      }
      const permit: Permit = permitOrRejection;

      if (now >= r.deadline) {
        // Admitted at the last instant: nothing is sent that cannot be answered in time.
        lease.release();
        permit.ignore();
        return deadLetter(r, 'deadline', pinned);
      }
      r.attempts++;
      r.path.push(nodeName);
      const sentAt = now;
      body ??= wireBody(claim, productId);
      let verdict: Verdict;
      let answered: number;
      try {
        const sent = transport.send(
          nodes[current]!,
          {
            method: 'POST',
            path: '/adjudicate',
            headers:
              token === undefined
                ? {
                    'content-type': 'application/json',
                    'idempotency-key': requestKey,
                    'x-ncpdp-version': 'D.0',
                    'x-correlation-id': r.correlationId,
                  }
                : {
                    'content-type': 'application/json',
                    'idempotency-key': requestKey,
                    'x-ncpdp-version': 'D.0',
                    'x-correlation-id': r.correlationId,
                    authorization: `Bearer ${token}`,
                  },
            body,
          },
          r.signal,
        );
        let response: WireResponse;
        if (sent instanceof Promise) {
          arm(r);
          response = await sent;
        } else response = sent;
        answered = clock.now();
        verdict = classify(response, {
          now: answered,
          transactionCode: claim.transactionCode,
          ...classifyOptions,
        });
      } catch (e) {
        answered = clock.now();
        // Classify the network's own error (its code), not our wrapper around it.
        verdict = isTransportError(e)
          ? classify({ error: { code: e.transportCode, name: 'TransportError' }, phase: e.phase })
          : classify({ error: e, phase: 'sent' });
      } finally {
        lease.release();
      }
      const latency = answered - sentAt;
      permit[verdict.breaker]();
      const nm = nodeMetrics[current]!;
      if (verdict.quota !== undefined) {
        // The classifier keeps a maintenance Retry-After out of the signal: it is the node's.
        // The vendor measured its window's reset when it answered: half a round trip before we
        // read it, as NTP assumes. Read as of now, the window would seem to end later than it
        // does, and the next window's first requests would be held back (measured: 97.6-99 % of
        // a 1 s window's quota on loopback; with the correction 99.6-100 %, no more throttled).
        const q = verdict.quota;
        nodeLimiter.observe(
          q.resetSeconds !== undefined && latency > 0
            ? { ...q, resetSeconds: Math.max(0, q.resetSeconds - latency / 2000) }
            : q,
        );
        if (verdict.quota.remaining !== undefined) nm.remaining.set(verdict.quota.remaining);
      }
      const codes =
        'rejectCodes' in verdict && verdict.rejectCodes && verdict.rejectCodes.length > 0
          ? verdict.rejectCodes.map((c) => c.code)
          : undefined;
      attemptCounter(current, verdict.kind).inc();
      nm.latency.observe(latency);
      if (onEvent !== undefined)
        onEvent({
          type: 'attempt',
          correlationId: r.correlationId,
          node: nodeName,
          attempt: r.attempts,
          verdict: verdict.kind,
          latencyMs: latency,
          ...(verdict.status === undefined ? {} : { status: verdict.status }),
        });
      const attemptRecord: Mutable<AuditRecord> = {
        at: answered,
        correlationId: r.correlationId,
        claimKey: r.claimKey,
        type: 'attempt',
        attempt: r.attempts,
        node: nodeName,
        lane,
        verdict: verdict.kind,
      };
      if (verdict.status !== undefined) attemptRecord.status = verdict.status;
      if (codes !== undefined) attemptRecord.codes = codes;
      const recorded = audit.append(attemptRecord);
      if (recorded) await recorded;

      switch (verdict.kind) {
        case 'adjudicated': {
          const o: Mutable<OutcomeBody> = {
            kind:
              verdict.status112AN === 'P' ? 'paid' : verdict.status112AN === 'A' ? 'approved' : 'captured',
            amounts: amounts(verdict.amounts),
            node: nodeName,
          };
          if (verdict.authorizationNumber !== undefined) o.authorizationNumber = verdict.authorizationNumber;
          return finish(r, o, answered);
        }
        case 'duplicate': {
          const o: Mutable<OutcomeBody> = {
            kind: 'duplicate',
            amounts: amounts(verdict.amounts),
            node: nodeName,
          };
          if (verdict.status112AN !== undefined) o.status112AN = verdict.status112AN;
          return finish(r, o, answered);
        }
        case 'terminal-reject':
          return finish(r, rejected(verdict), answered);
        case 'repairable': {
          if (verdict.repair !== 'product' || repaired || options.crosswalk === undefined)
            return finish(r, rejected(verdict), answered);
          const cw = options.crosswalk;
          r.snapshotVersion = cw.version;
          const entry = cw.lookup(productId);
          if (entry === undefined) {
            await decide(r, 'repair:ndc-not-in-taxonomy', { snapshotVersion: cw.version });
            return finish(r, {
              kind: 'rejected',
              codes: verdict.rejectCodes.map((c) => c.code),
              group: 'ndc_not_in_taxonomy',
              priorAuthRequired: false,
              local: false,
            });
          }
          if (entry.ndc === undefined || entry.ndc === productId) {
            await decide(r, 'repair:no-successor', { snapshotVersion: cw.version });
            return finish(r, rejected(verdict));
          }
          repaired = true;
          productId = entry.ndc;
          body = undefined;
          requestKey = repairedKey(r.claimKey, 1);
          await decide(r, 'repair', { snapshotVersion: cw.version, node: nodeName });
          continue;
        }
        case 'routing-reject': {
          const code = verdict.mappedRejectCode;
          await negativeCache.add(negativeKey(code, r.payer, productId), negativeTtl);
          await decide(r, `negative-cache:add-${code}`);
          return finish(r, negativeReject(code, false));
        }
        case 'auth-expired':
          if (token !== undefined) options.credentials?.invalidate(nodes[current]!, token);
          if (authReplayed) return deadLetter(r, 'auth-failed', pinned);
          authReplayed = true;
          await decide(r, 'refresh', { node: nodeName });
          continue;
        case 'throttled': {
          // The limiter was paused or slowed by the quota signal; a bare 429 gets a jittered backoff.
          nm.throttled.inc();
          const ms = verdict.retryAfterMs ?? backoff();
          if (clock.now() + ms > r.deadline) {
            await decide(r, 'throttled:past-deadline', { waitMs: ms, node: nodeName });
            return deadLetter(r, 'throttled-past-deadline', pinned);
          }
          if (verdict.retryAfterMs === undefined && !(await wait(r, ms, 'throttled')))
            return deadLetter(r, 'throttled-past-deadline', pinned);
          continue;
        }
        case 'transient': {
          transientOnNode++;
          nm.backoffs.inc();
          // A node that names its own downtime (503 with Retry-After) is down for that long:
          // every claim goes around it, as a breaker opened for the window would.
          if (
            verdict.retryAfterMs !== undefined &&
            verdict.retryAfterMs >= MAINTENANCE_MS &&
            verdict.breaker === 'failure'
          ) {
            downUntil[current] = Math.max(downUntil[current]!, clock.now() + verdict.retryAfterMs);
            if (await failover('maintenance')) continue;
          }
          if (transientOnNode <= retry.transient) {
            const ms = verdict.retryAfterMs ?? backoff();
            if (await wait(r, ms, 'transient')) continue;
          }
          if (await failover('transient')) continue;
          return deadLetter(
            r,
            verdict.retryAfterMs !== undefined && verdict.retryAfterMs > 60_000
              ? 'deferred-retry'
              : 'transient-exhausted',
            pinned,
          );
        }
        case 'ambiguous': {
          // Sent, no answer: maybe paid. Same node, same key; the vendor replays a committed answer.
          if (!shared) pinned = current;
          ambiguousOnNode++;
          if (ambiguousOnNode <= retry.ambiguous) {
            if (await wait(r, backoff(), 'ambiguous')) continue;
            return deadLetter(r, 'deadline-after-ambiguous', current);
          }
          if (shared && (await failover('ambiguous'))) continue;
          await decide(r, 'park-for-reconciliation', { node: nodeName });
          return finish(r, { kind: 'needs-reconciliation', reason: 'answer-lost', node: nodeName });
        }
        case 'client-error':
          return deadLetter(r, `client-error:${verdict.reason}`, pinned);
        case 'unknown':
          // A 200 we cannot read may be a payment: a person reconciles it, nobody resends it blindly.
          if (verdict.status === 200) {
            await decide(r, 'park-for-reconciliation', { node: nodeName });
            return finish(r, { kind: 'needs-reconciliation', reason: verdict.reason, node: nodeName });
          }
          return deadLetter(r, `unknown:${verdict.reason}`, pinned);
      }
    }
  }

  /** Runs an owned claim to its outcome, then records it: ledger, metrics, audit. */
  async function own(r: ClaimRun, userSignal: AbortSignal | undefined): Promise<Outcome> {
    const onAbort = userSignal === undefined ? undefined : () => r.signal.abort(userSignal.reason);
    if (userSignal !== undefined && onAbort !== undefined) {
      if (userSignal.aborted) r.signal.abort(userSignal.reason);
      else userSignal.addEventListener('abort', onAbort, { once: true });
    }
    let outcome: Outcome;
    try {
      outcome = await run(r);
    } catch (e) {
      // Exactly one outcome, whatever happened inside.
      log.error(
        { correlationId: r.correlationId, error: e instanceof Error ? e.name : 'unknown' },
        'router internal error',
      );
      outcome = finish(r, { kind: 'dead-lettered', reason: 'internal-error', lane: 'batch' });
    } finally {
      r.timer?.cancel();
      if (onAbort !== undefined) userSignal?.removeEventListener('abort', onAbort);
    }
    try {
      const finished = ledger.finish(r.claimKey, outcome);
      if (finished) await finished;
    } catch {
      log.warn({ correlationId: r.correlationId, ledger: 'finish-failed' }, 'ledger unavailable at finish');
    }
    try {
      const recorded = finishOutcome(outcome, r.lane);
      if (recorded) await recorded;
    } finally {
      settled();
    }
    return outcome;
  }

  /** A claim whose ledger answer is asynchronous (a shared store), or that must join another. */
  async function begin(
    claim: CanonicalClaim,
    claimKey: string,
    correlationId: string,
    lane: Lane,
    segment: string,
    start: number,
    o: SubmitOptions,
    first: LedgerEntry | Promise<LedgerEntry>,
  ): Promise<Outcome> {
    // Join a claim in flight; when its owner is gone (a crashed process), take it over.
    let begun = first;
    for (;;) {
      let entry: LedgerEntry;
      try {
        entry = begun instanceof Promise ? await begun : begun;
      } catch {
        // Without the ledger, exactly-once cannot be promised: nothing is sent.
        const outcome: Outcome = {
          kind: 'dead-lettered',
          reason: 'ledger-unavailable',
          lane: 'batch',
          claimKey,
          correlationId,
          path: [],
          attempts: 0,
          elapsedMs: clock.now() - start,
        };
        try {
          const recorded = finishOutcome(outcome, lane);
          if (recorded) await recorded;
        } finally {
          settled();
        }
        return outcome;
      }
      if (entry.kind === 'done') {
        settled();
        return entry.outcome;
      }
      if (entry.kind === 'owner') {
        let r: ClaimRun;
        try {
          r = claimRun(claim, claimKey, correlationId, lane, segment, start, o);
        } catch (e) {
          // A lane missing from `lanes`: the claim is done with, and counted out.
          settled();
          throw e;
        }
        return own(r, o.signal);
      }
      const joined = await entry.wait.catch(() => undefined);
      if (joined !== undefined) {
        settled();
        return joined;
      }
      try {
        begun = ledger.begin(claimKey);
      } catch (e) {
        begun = Promise.reject(e);
      }
    }
  }

  const claimRun = (
    claim: CanonicalClaim,
    claimKey: string,
    correlationId: string,
    lane: Lane,
    segment: string,
    start: number,
    o: SubmitOptions,
  ): ClaimRun => {
    const budgets = lanes[lane];
    const deadline = o.deadline ?? start + (budgets[segment] ?? budgets.default);
    return new ClaimRun(
      claim,
      claimKey,
      correlationId,
      lane,
      segment,
      start,
      deadline,
      `${claim.bin}/${claim.pcn}`,
    );
  };

  function submit(raw: unknown, o: SubmitOptions): Promise<Outcome> {
    const start = clock.now();
    const lane: Lane = o.lane === 'batch' ? 'batch' : 'pos';
    const segment = o.segment ?? 'retail';
    const correlationId = correlationPrefix + (++sequence).toString(36);
    const parsed = safeParseClaim(raw);
    if (!parsed.ok) {
      const outcome: Outcome = {
        kind: 'invalid',
        issues: parsed.issues,
        claimKey: '',
        correlationId,
        path: [],
        attempts: 0,
        elapsedMs: 0,
      };
      let recorded: void | Promise<void>;
      try {
        recorded = finishOutcome(outcome, lane);
      } catch (e) {
        settled();
        return Promise.reject(e);
      }
      if (recorded === undefined) {
        settled();
        return Promise.resolve(outcome);
      }
      return recorded.then(
        () => {
          settled();
          return outcome;
        },
        (e) => {
          settled();
          throw e;
        },
      );
    }
    const claim = parsed.claim;
    const claimKey = keyOf(claim);
    let begun: LedgerEntry | Promise<LedgerEntry>;
    try {
      begun = ledger.begin(claimKey);
    } catch (e) {
      begun = Promise.reject(e);
    }
    // The embedded ledger answers at once: an owned claim goes straight to its run.
    if (!(begun instanceof Promise) && begun.kind === 'owner')
      return own(claimRun(claim, claimKey, correlationId, lane, segment, start, o), o.signal);
    return begin(claim, claimKey, correlationId, lane, segment, start, o, begun);
  }

  function finishOutcome(outcome: Outcome, lane: Lane): void | Promise<void> {
    const m = byLane[lane];
    outcomeCounter(lane, outcome.kind).inc();
    m.latency.observe(outcome.elapsedMs);
    if (onEvent !== undefined)
      onEvent({
        type: 'outcome',
        correlationId: outcome.correlationId,
        kind: outcome.kind,
        lane,
        attempts: outcome.attempts,
        elapsedMs: outcome.elapsedMs,
        path: outcome.path,
      });
    const record: Mutable<AuditRecord> = {
      at: clock.now(),
      correlationId: outcome.correlationId,
      claimKey: outcome.claimKey,
      type: 'outcome',
      lane,
      path: outcome.path,
      outcome: auditView(outcome),
    };
    if (outcome.snapshotVersion !== undefined) record.snapshotVersion = outcome.snapshotVersion;
    return audit.append(record);
  }

  // Every path of `submit` calls this exactly once, when its claim is done.
  function settled(): void {
    if (--inFlight === 0 && drained !== undefined) drained();
  }

  return {
    submit(raw, o = {}) {
      if (closed) return Promise.reject(new RouterClosedError());
      inFlight++;
      try {
        return submit(raw, o);
      } catch (e) {
        // Only a synchronous throw before a claim path began (parsing never throws).
        settled();
        return Promise.reject(e);
      }
    },
    async close() {
      closed = true;
      if (inFlight > 0)
        await new Promise<void>((resolve) => {
          drained = resolve;
        });
      await transport.close();
      await (audit as AuditLog).close?.();
    },
    metrics,
    get inFlight() {
      return inFlight;
    },
  };
}

/** What a 404 teaches, by the reject code it maps to: 04 an unknown route, 70 an unknown product. */
const NEGATIVE = {
  '04': { what: 'route', group: 'repair-routing' },
  '70': { what: 'product', group: 'terminal' },
} as const;
const NEGATIVE_CODES = ['04', '70'] as const;

/** The negative cache's key for what a 04 or a 70 names. */
function negativeKey(code: '04' | '70', payer: string, productId: string): string {
  return code === '70' ? `ndc:${productId}` : `route:${payer}`;
}

function negativeReject(code: '04' | '70', local: boolean): OutcomeBody {
  return { kind: 'rejected', codes: [code], group: NEGATIVE[code].group, priorAuthRequired: false, local };
}

function amounts(a: { patientPay?: string; ingredientCostPaid?: string; totalPaid?: string }): PaidAmounts {
  const out: Mutable<PaidAmounts> = {};
  if (a.patientPay !== undefined) out.patientPay = new Decimal(a.patientPay);
  if (a.ingredientCostPaid !== undefined) out.ingredientCostPaid = new Decimal(a.ingredientCostPaid);
  if (a.totalPaid !== undefined) out.totalPaid = new Decimal(a.totalPaid);
  return out;
}

function rejected(verdict: Extract<Verdict, { kind: 'terminal-reject' | 'repairable' }>): OutcomeBody {
  const codes = verdict.rejectCodes.map((c) => c.code);
  const group =
    verdict.rejectCodes.find((c) => c.group === 'terminal')?.group ??
    verdict.rejectCodes[0]?.group ??
    'unknown';
  return {
    kind: 'rejected',
    codes,
    group,
    priorAuthRequired: verdict.priorAuthRequired,
    local: false,
  };
}

/** The PHI-free fields of an outcome for the audit log (amounts as decimal strings). */
function auditView(o: Outcome): Record<string, unknown> {
  const view: Record<string, unknown> = { kind: o.kind, attempts: o.attempts, elapsedMs: o.elapsedMs };
  switch (o.kind) {
    case 'paid':
    case 'approved':
    case 'captured':
    case 'duplicate':
      view.node = o.node;
      if (o.amounts.patientPay !== undefined) view.patientPay = decimalFixed(o.amounts.patientPay, 2);
      if (o.amounts.ingredientCostPaid !== undefined)
        view.ingredientCostPaid = decimalFixed(o.amounts.ingredientCostPaid, 2);
      if (o.amounts.totalPaid !== undefined) view.totalPaid = decimalFixed(o.amounts.totalPaid, 2);
      break;
    case 'rejected':
      view.codes = o.codes;
      view.group = o.group;
      view.priorAuthRequired = o.priorAuthRequired;
      break;
    case 'dead-lettered':
      view.reason = o.reason;
      view.lane = o.lane;
      break;
    case 'needs-reconciliation':
      view.reason = o.reason;
      view.node = o.node;
      break;
    case 'invalid':
      view.fields = o.issues.map((i) => i.field);
      break;
  }
  return view;
}
