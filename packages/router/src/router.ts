import { type BreakerEvent, type Breakers, createBreakers, type Permit } from '@rxgate/breaker';
import { type Catalogue, classify, type Verdict } from '@rxgate/classifier';
import {
  type Clock,
  createLimiter,
  isDeadlineExceededError,
  type Lease,
  type LimiterAcquireOptions,
  type QuotaSignal,
  systemClock,
} from '@rxgate/ratelimit';
import { Decimal } from 'decimal.js';
import { type AuditLog, type AuditRecord, MemoryAuditLog } from './audit.js';
import { type CanonicalClaim, safeParseClaim, toWire } from './claim.js';
import type { Credentials } from './credentials.js';
import type { Crosswalk } from './crosswalk.js';
import { type DeadLetterQueue, MemoryDeadLetterQueue } from './dead-letters.js';
import { isTransportError, RouterClosedError, RouterConfigError } from './errors.js';
import { idempotencyKey, repairedKey } from './idempotency.js';
import type { Outcome, PaidAmounts } from './outcome.js';
import { sleep } from './sleep.js';
import { type Ledger, MemoryLedger, MemoryNegativeCache, type NegativeCache } from './stores.js';
import { type Logger, labels, Metrics, type RouterEvent, safeLogger } from './telemetry.js';
import { type Transport, undiciTransport, type WireResponse } from './transport.js';

export type Lane = 'pos' | 'batch';

/** What the router needs of a limiter: `createLimiter`'s, or the shared Redis one (`@rxgate/ratelimit/redis`). */
export interface RouterLimiter {
  acquire(options: LimiterAcquireOptions): Promise<Lease>;
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

interface Attempting {
  readonly claim: CanonicalClaim;
  readonly claimKey: string;
  readonly correlationId: string;
  readonly lane: Lane;
  readonly segment: string;
  readonly start: number;
  readonly deadline: number;
  readonly signal: AbortSignal;
  readonly payer: string;
  path: string[];
  attempts: number;
  snapshotVersion: string | undefined;
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
  const parity = options.parity ?? (() => true);
  const shared = options.sharedIdempotency === true;
  const retry = {
    transient: options.retry?.transientRetries ?? 2,
    ambiguous: options.retry?.ambiguousRetries ?? 2,
    baseMs: options.retry?.baseMs ?? 50,
    capMs: options.retry?.capMs ?? { pos: 400, batch: 30_000 },
  };
  const metrics = options.metrics ?? new Metrics();
  const log = safeLogger(options.logger);
  const onEvent = options.onEvent;
  // Events are built only when someone listens: the hot path allocates nothing for them.
  const emit = (make: () => RouterEvent): void => {
    if (onEvent !== undefined) onEvent(make());
  };
  const watched = new Set<string>();
  // Nodes that announced downtime (503 + Retry-After), by index: until when.
  const downUntil = new Map<number, number>();
  const inFlight = new Set<Promise<Outcome>>();
  let closed = false;
  let sequence = 0;
  const correlationPrefix = Math.floor(random() * 0xffffff)
    .toString(16)
    .padStart(6, '0');

  const limiterOf = (i: number): RouterLimiter => nodes[i]!.limiter ?? limiter;
  const breakerKey = (i: number, segment: string) => `${nodes[i]!.name}:${segment}`;
  const breakerOf = (i: number, segment: string) => {
    const key = breakerKey(i, segment);
    const b = breakers.get(key);
    if (!watched.has(key)) {
      watched.add(key);
      b.on((e: BreakerEvent) => {
        if (e.type !== 'state-change') return;
        metrics.inc(
          'rxgate_breaker_transitions_total',
          labels(nodes[i]!.name, undefined, undefined, segment, e.to),
        );
        emit(() => ({ type: 'breaker', key, from: e.from, to: e.to, reason: e.reason, at: e.at }));
        log.info({ breaker: key, from: e.from, to: e.to, reason: e.reason }, 'breaker state change');
      });
    }
    return b;
  };
  const usable = (i: number) => i < nodes.length && (i === 0 || parity(nodes[i]!.name));

  const record = (r: AuditRecord) => audit.append(r);

  async function run(a: Attempting): Promise<Outcome> {
    const { claim, lane, segment } = a;
    const base = () => ({
      claimKey: a.claimKey,
      correlationId: a.correlationId,
      path: a.path,
      attempts: a.attempts,
      elapsedMs: clock.now() - a.start,
      ...(a.snapshotVersion === undefined ? {} : { snapshotVersion: a.snapshotVersion }),
    });
    const deadLetter = async (reason: string, pinned?: number): Promise<Outcome> => {
      // A pos claim that runs out of time is handed to the batch lane, never held at the counter.
      await deadLetters.put({
        claimKey: a.claimKey,
        correlationId: a.correlationId,
        reason,
        lane: 'batch',
        at: clock.now(),
        claim,
        ...(pinned === undefined ? {} : { pinnedNode: nodes[pinned]!.name }),
      });
      return { kind: 'dead-lettered', reason, lane: 'batch', ...base() };
    };
    const decide = (decision: string, extra: Partial<AuditRecord> = {}) => {
      a.path.push(decision);
      emit(() => ({
        type: 'decision',
        correlationId: a.correlationId,
        decision,
        ...(extra.waitMs === undefined ? {} : { waitMs: extra.waitMs }),
      }));
      return record({
        at: clock.now(),
        correlationId: a.correlationId,
        claimKey: a.claimKey,
        type: 'decision',
        decision,
        lane,
        ...extra,
      });
    };

    // Negative cache: a route or product the vendor does not know costs no quota.
    // The stores may answer synchronously: then nothing waits a turn for them.
    const knownRoute = negativeCache.has(`route:${a.payer}`);
    if (knownRoute === true || (knownRoute !== false && (await knownRoute))) {
      await decide('negative-cache:route');
      return {
        kind: 'rejected',
        codes: ['04'],
        group: 'repair-routing',
        priorAuthRequired: false,
        local: true,
        ...base(),
      };
    }
    const knownProduct = negativeCache.has(`ndc:${claim.productId}`);
    if (knownProduct === true || (knownProduct !== false && (await knownProduct))) {
      await decide('negative-cache:product');
      return {
        kind: 'rejected',
        codes: ['70'],
        group: 'terminal',
        priorAuthRequired: false,
        local: true,
        ...base(),
      };
    }

    let node = 0;
    let pinned: number | undefined;
    let requestKey = a.claimKey;
    let productId = claim.productId;
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
      await decide(`failover:${reason}`, { node: nodes[node]!.name });
      return true;
    };
    // Waits within the deadline; false when the wait would miss it.
    const wait = async (ms: number, why: string): Promise<boolean> => {
      if (clock.now() + ms > a.deadline) return false;
      metrics.observe('rxgate_wait_ms', labels(undefined, lane), ms);
      await decide(`wait:${why}`, { waitMs: ms });
      await sleep(clock, ms, a.signal);
      return !a.signal.aborted;
    };
    const backoff = () => random() * Math.min(retry.capMs[lane], retry.baseMs * 2 ** backoffs++);

    for (;;) {
      if (a.signal.aborted) return deadLetter(clock.now() >= a.deadline ? 'deadline' : 'aborted', pinned);
      if (clock.now() >= a.deadline) return deadLetter('deadline', pinned);

      // The primary's breaker is open, or it said it is down for maintenance: go to the fallback now, when allowed.
      if (pinned === undefined && node === 0 && nodes.length > 1) {
        if (breakerOf(0, segment).state === 'open') await failover('breaker-open');
        else if ((downUntil.get(0) ?? 0) > clock.now()) await failover('maintenance');
      }
      const current = pinned ?? node;
      const nodeName = nodes[current]!.name;

      let lease: Lease;
      try {
        lease = await limiterOf(current).acquire({
          key: a.payer,
          lane,
          deadline: a.deadline,
          signal: a.signal,
        });
      } catch (e) {
        if (isDeadlineExceededError(e)) {
          await decide('limiter:deadline', { waitMs: e.predictedWaitMs, node: nodeName });
          return deadLetter('limiter-deadline', pinned);
        }
        return deadLetter(a.signal.aborted ? 'aborted' : 'limiter-refused', pinned);
      }

      let token: string | undefined;
      if (options.credentials) {
        try {
          token = await options.credentials.token(nodes[current]!, a.signal);
        } catch {
          lease.release();
          await decide('credentials:unavailable', { node: nodeName });
          if (++transientOnNode <= retry.transient && (await wait(backoff(), 'credentials'))) continue;
          if (await failover('credentials')) continue;
          return deadLetter('credentials-unavailable', pinned);
        }
      }

      const permitOrRejection = breakerOf(current, segment).tryAcquire();
      if (permitOrRejection.kind === 'rejected') {
        lease.release();
        await decide('breaker:rejected', { node: nodeName, waitMs: permitOrRejection.retryAfterMs });
        if (await failover('breaker-open')) continue;
        // Open: wait until the next probe. Half-open with every probe slot taken (0): back off.
        const ms = permitOrRejection.retryAfterMs > 0 ? permitOrRejection.retryAfterMs : backoff();
        if (await wait(ms, 'breaker')) continue;
        return deadLetter('breaker-open', pinned);
      }
      const permit: Permit = permitOrRejection;

      if (clock.now() >= a.deadline) {
        // Admitted at the last instant: nothing is sent that cannot be answered in time.
        lease.release();
        permit.ignore();
        return deadLetter('deadline', pinned);
      }
      a.attempts++;
      a.path.push(nodeName);
      const sentAt = clock.now();
      let verdict: Verdict;
      let response: WireResponse | undefined;
      try {
        response = await transport.send(
          nodes[current]!,
          {
            method: 'POST',
            path: '/adjudicate',
            headers: {
              'content-type': 'application/json',
              'idempotency-key': requestKey,
              'x-ncpdp-version': 'D.0',
              'x-correlation-id': a.correlationId,
              ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
            },
            body: JSON.stringify(toWire(claim, productId)),
          },
          a.signal,
        );
        verdict = classify(
          { status: response.status, headers: response.headers, body: response.body },
          {
            now: clock.now(),
            transactionCode: claim.transactionCode,
            ...(options.catalogue ? { catalogue: options.catalogue } : {}),
          },
        );
      } catch (e) {
        // Classify the network's own error (its code), not our wrapper around it.
        verdict = isTransportError(e)
          ? classify({ error: { code: e.transportCode, name: 'TransportError' }, phase: e.phase })
          : classify({ error: e, phase: 'sent' });
      } finally {
        lease.release();
      }
      const latency = clock.now() - sentAt;
      permit[verdict.breaker]();
      if (verdict.quota !== undefined) {
        // The classifier keeps a maintenance Retry-After out of the signal: it is the node's.
        limiterOf(current).observe(verdict.quota);
        if (verdict.quota.remaining !== undefined)
          metrics.set('rxgate_remaining_quota', labels(nodeName, undefined), verdict.quota.remaining);
      }
      const codes =
        'rejectCodes' in verdict && verdict.rejectCodes ? verdict.rejectCodes.map((c) => c.code) : undefined;
      metrics.inc('rxgate_attempts_total', labels(nodeName, undefined, verdict.kind));
      metrics.observe('rxgate_attempt_latency_ms', labels(nodeName, undefined), latency);
      emit(() => ({
        type: 'attempt',
        correlationId: a.correlationId,
        node: nodeName,
        attempt: a.attempts,
        verdict: verdict.kind,
        latencyMs: latency,
        ...(verdict.status === undefined ? {} : { status: verdict.status }),
      }));
      const recorded = record({
        at: clock.now(),
        correlationId: a.correlationId,
        claimKey: a.claimKey,
        type: 'attempt',
        attempt: a.attempts,
        node: nodeName,
        lane,
        verdict: verdict.kind,
        ...(verdict.status === undefined ? {} : { status: verdict.status }),
        ...(codes === undefined || codes.length === 0 ? {} : { codes }),
      });
      if (recorded) await recorded;

      switch (verdict.kind) {
        case 'adjudicated':
          return {
            kind:
              verdict.status112AN === 'P' ? 'paid' : verdict.status112AN === 'A' ? 'approved' : 'captured',
            amounts: amounts(verdict.amounts),
            node: nodeName,
            ...(verdict.authorizationNumber === undefined
              ? {}
              : { authorizationNumber: verdict.authorizationNumber }),
            ...base(),
          };
        case 'duplicate':
          return {
            kind: 'duplicate',
            amounts: amounts(verdict.amounts),
            node: nodeName,
            ...(verdict.status112AN === undefined ? {} : { status112AN: verdict.status112AN }),
            ...base(),
          };
        case 'terminal-reject':
          return rejected(verdict, base());
        case 'repairable': {
          if (verdict.repair !== 'product' || repaired || options.crosswalk === undefined)
            return rejected(verdict, base());
          const cw = options.crosswalk;
          a.snapshotVersion = cw.version;
          const entry = cw.lookup(productId);
          if (entry === undefined) {
            await decide('repair:ndc-not-in-taxonomy', { snapshotVersion: cw.version });
            return {
              kind: 'rejected',
              codes: verdict.rejectCodes.map((c) => c.code),
              group: 'ndc_not_in_taxonomy',
              priorAuthRequired: false,
              local: false,
              ...base(),
            };
          }
          if (entry.ndc === undefined || entry.ndc === productId) {
            await decide('repair:no-successor', { snapshotVersion: cw.version });
            return rejected(verdict, base());
          }
          repaired = true;
          productId = entry.ndc;
          requestKey = repairedKey(a.claimKey, 1);
          await decide('repair', { snapshotVersion: cw.version, node: nodeName });
          continue;
        }
        case 'routing-reject': {
          await negativeCache.add(
            verdict.mappedRejectCode === '70' ? `ndc:${productId}` : `route:${a.payer}`,
            negativeTtl,
          );
          await decide(`negative-cache:add-${verdict.mappedRejectCode}`);
          return {
            kind: 'rejected',
            codes: [verdict.mappedRejectCode],
            group: verdict.mappedRejectCode === '70' ? 'terminal' : 'repair-routing',
            priorAuthRequired: false,
            local: false,
            ...base(),
          };
        }
        case 'auth-expired':
          if (token !== undefined) options.credentials?.invalidate(nodes[current]!, token);
          if (authReplayed) return deadLetter('auth-failed', pinned);
          authReplayed = true;
          await decide('refresh', { node: nodeName });
          continue;
        case 'throttled': {
          // The limiter was paused or slowed by the quota signal; a bare 429 gets a jittered backoff.
          metrics.inc('rxgate_throttled_total', labels(nodeName, undefined));
          const ms = verdict.retryAfterMs ?? backoff();
          if (clock.now() + ms > a.deadline) {
            await decide('throttled:past-deadline', { waitMs: ms, node: nodeName });
            return deadLetter('throttled-past-deadline', pinned);
          }
          if (verdict.retryAfterMs === undefined && !(await wait(ms, 'throttled')))
            return deadLetter('throttled-past-deadline', pinned);
          continue;
        }
        case 'transient': {
          transientOnNode++;
          metrics.inc('rxgate_backoffs_total', labels(nodeName, undefined));
          // A node that names its own downtime (503 with Retry-After) is down for that long:
          // every claim goes around it, as a breaker opened for the window would.
          if (
            verdict.retryAfterMs !== undefined &&
            verdict.retryAfterMs >= MAINTENANCE_MS &&
            verdict.breaker === 'failure'
          ) {
            downUntil.set(current, Math.max(downUntil.get(current) ?? 0, clock.now() + verdict.retryAfterMs));
            if (await failover('maintenance')) continue;
          }
          if (transientOnNode <= retry.transient) {
            const ms = verdict.retryAfterMs ?? backoff();
            if (await wait(ms, 'transient')) continue;
          }
          if (await failover('transient')) continue;
          return deadLetter(
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
            if (await wait(backoff(), 'ambiguous')) continue;
            return deadLetter('deadline-after-ambiguous', current);
          }
          if (shared && (await failover('ambiguous'))) continue;
          await decide('park-for-reconciliation', { node: nodeName });
          return { kind: 'needs-reconciliation', reason: 'answer-lost', node: nodeName, ...base() };
        }
        case 'client-error':
          return deadLetter(`client-error:${verdict.reason}`, pinned);
        case 'unknown':
          // A 200 we cannot read may be a payment: a person reconciles it, nobody resends it blindly.
          if (verdict.status === 200) {
            await decide('park-for-reconciliation', { node: nodeName });
            return { kind: 'needs-reconciliation', reason: verdict.reason, node: nodeName, ...base() };
          }
          return deadLetter(`unknown:${verdict.reason}`, pinned);
      }
    }
  }

  async function submit(raw: unknown, o: SubmitOptions = {}): Promise<Outcome> {
    const start = clock.now();
    const lane: Lane = o.lane === 'batch' ? 'batch' : 'pos';
    const segment = o.segment ?? 'retail';
    const correlationId = `${correlationPrefix}-${(++sequence).toString(36)}`;
    if (closed) throw new RouterClosedError();
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
      await finishOutcome(outcome, lane);
      return outcome;
    }
    const claim = parsed.claim;
    const claimKey = idempotencyKey(claim, options.idempotencySecret);
    // Join a claim in flight; when its owner is gone (a crashed process), take it over.
    for (;;) {
      let entry: Awaited<ReturnType<Ledger['begin']>>;
      try {
        const begun = ledger.begin(claimKey);
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
        await finishOutcome(outcome, lane);
        return outcome;
      }
      if (entry.kind === 'done') return entry.outcome;
      if (entry.kind === 'owner') break;
      const joined = await entry.wait.catch(() => undefined);
      if (joined !== undefined) return joined;
    }

    const budgets = lanes[lane];
    const deadline = o.deadline ?? start + (budgets[segment] ?? budgets.default);
    const controller = new AbortController();
    const deadlineTimer = clock.setTimer(Math.max(0, deadline - start), () => controller.abort());
    const onAbort = () => controller.abort();
    o.signal?.addEventListener('abort', onAbort, { once: true });
    if (o.signal?.aborted) controller.abort();
    const attempting: Attempting = {
      claim,
      claimKey,
      correlationId,
      lane,
      segment,
      start,
      deadline,
      signal: controller.signal,
      payer: `${claim.bin}/${claim.pcn}`,
      path: [],
      attempts: 0,
      snapshotVersion: undefined,
    };
    let outcome: Outcome;
    try {
      outcome = await run(attempting);
    } catch (e) {
      // Exactly one outcome, whatever happened inside.
      log.error({ correlationId, error: e instanceof Error ? e.name : 'unknown' }, 'router internal error');
      outcome = {
        kind: 'dead-lettered',
        reason: 'internal-error',
        lane: 'batch',
        claimKey,
        correlationId,
        path: attempting.path,
        attempts: attempting.attempts,
        elapsedMs: clock.now() - start,
      };
    } finally {
      deadlineTimer.cancel();
      o.signal?.removeEventListener('abort', onAbort);
    }
    try {
      const finished = ledger.finish(claimKey, outcome);
      if (finished) await finished;
    } catch {
      log.warn({ correlationId, ledger: 'finish-failed' }, 'ledger unavailable at finish');
    }
    const recorded = finishOutcome(outcome, lane);
    if (recorded) await recorded;
    return outcome;
  }

  function finishOutcome(outcome: Outcome, lane: Lane): void | Promise<void> {
    metrics.inc('rxgate_outcomes_total', labels(undefined, lane, outcome.kind));
    metrics.observe('rxgate_claim_latency_ms', labels(undefined, lane), outcome.elapsedMs);
    emit(() => ({
      type: 'outcome',
      correlationId: outcome.correlationId,
      kind: outcome.kind,
      lane,
      attempts: outcome.attempts,
      elapsedMs: outcome.elapsedMs,
      path: outcome.path,
    }));
    return record({
      at: clock.now(),
      correlationId: outcome.correlationId,
      claimKey: outcome.claimKey,
      type: 'outcome',
      lane,
      path: outcome.path,
      ...(outcome.snapshotVersion === undefined ? {} : { snapshotVersion: outcome.snapshotVersion }),
      outcome: auditView(outcome),
    });
  }

  return {
    submit(raw, o) {
      const p = submit(raw, o);
      inFlight.add(p);
      const done = () => inFlight.delete(p);
      p.then(done, done);
      return p;
    },
    async close() {
      closed = true;
      await Promise.allSettled([...inFlight]);
      await transport.close();
      await (audit as AuditLog).close?.();
    },
    metrics,
    get inFlight() {
      return inFlight.size;
    },
  };
}

function amounts(a: { patientPay?: string; ingredientCostPaid?: string; totalPaid?: string }): PaidAmounts {
  return {
    ...(a.patientPay === undefined ? {} : { patientPay: new Decimal(a.patientPay) }),
    ...(a.ingredientCostPaid === undefined ? {} : { ingredientCostPaid: new Decimal(a.ingredientCostPaid) }),
    ...(a.totalPaid === undefined ? {} : { totalPaid: new Decimal(a.totalPaid) }),
  };
}

function rejected(
  verdict: Extract<Verdict, { kind: 'terminal-reject' | 'repairable' }>,
  base: Omit<Outcome, 'kind'> & object,
): Outcome {
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
    ...(base as OutcomeBaseFields),
  };
}

type OutcomeBaseFields = Pick<Outcome, 'claimKey' | 'correlationId' | 'path' | 'attempts' | 'elapsedMs'>;

/** The PHI-free fields of an outcome for the audit log (amounts as decimal strings). */
function auditView(o: Outcome): Record<string, unknown> {
  const view: Record<string, unknown> = { kind: o.kind, attempts: o.attempts, elapsedMs: o.elapsedMs };
  switch (o.kind) {
    case 'paid':
    case 'approved':
    case 'captured':
    case 'duplicate':
      view.node = o.node;
      for (const [k, v] of Object.entries(o.amounts)) view[k] = (v as Decimal).toFixed(2);
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
