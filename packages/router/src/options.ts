import { type Breakers, createBreakers } from '@rxgate/breaker';
import type { Catalogue } from '@rxgate/classifier';
import {
  type Clock,
  createLimiter,
  type Lease,
  type LimiterAcquireOptions,
  type QuotaSignal,
  systemClock,
} from '@rxgate/ratelimit';
import type { AuditLog } from './audit.js';
import { MemoryAuditLog } from './audit.js';
import type { Credentials } from './credentials.js';
import type { Crosswalk } from './crosswalk.js';
import { type DeadLetterQueue, MemoryDeadLetterQueue } from './dead-letters.js';
import type { Lane } from './decide.js';
import { RouterConfigError } from './errors.js';
import { FileJournal } from './journal.js';
import { JournalLedger } from './journal-ledger.js';
import type { Ledger } from './ledger.js';
import { MemoryNegativeCache, type NegativeCache } from './negative-cache.js';
import type { RouterTelemetryOptions } from './otel.js';
import { type QuotaScope, type QuotaScopeOptions, resolveQuotaScope } from './quota-scope.js';
import type { Logger, Metrics, RouterEvent } from './telemetry.js';
import { type Transport, undiciTransport } from './transport.js';

export type { Lane };

/** What the router needs of a limiter: `createLimiter`'s, or the shared Redis one (`@rxgate/ratelimit/redis`). */
export interface RouterLimiter {
  acquire(options: LimiterAcquireOptions): Promise<Lease>;
  /**
   * Admits now or resolves undefined, never queueing; the router tries it first when present
   * (a claim admitted at once arms no deadline timer).
   */
  tryAcquire?(options: { readonly key: string; readonly lane?: Lane }): Promise<Lease | undefined>;
  /** Follows the vendor's quota signal; the router does not wait for it, and it must not reject. */
  observe(signal: QuotaSignal, options?: { readonly key?: string }): Promise<void>;
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
  /** Transient answers that processed nothing, retried on one node before failing over. @default 2 */
  readonly transientRetries?: number;
  /** Maybe-committed answers (a timeout after sending, a gateway 5xx) retried on one node, same key. @default 2 */
  readonly ambiguousRetries?: number;
  /** Full-jitter backoff base. @default 50 */
  readonly baseMs?: number;
  /** Backoff cap per lane. @default { pos: 400, batch: 30_000 } */
  readonly capMs?: Readonly<Record<Lane, number>>;
}

export interface AuditOptions {
  /**
   * Records held while the audit log fails, written again (in order) when it comes back.
   * Past this many, new claims are refused before anything is sent (dead-lettered
   * `audit-unavailable`): no claim is adjudicated without its audit trail.
   * @default 100_000
   */
  readonly backlogLimit?: number;
  /** First retry of a failed audit log; doubles up to 30 s. @default 100 */
  readonly retryBaseMs?: number;
}

export interface RouterOptions {
  /** One or two nodes: primary first, then the fallback. */
  readonly nodes: readonly RouterNode[];
  /** Whether the nodes share one idempotency store (a maybe-committed claim may then fail over). @default false */
  readonly sharedIdempotency?: boolean;
  /** Whether the fallback's state is current; failover happens only when it says so. @default () => true */
  readonly parity?: (node: string) => boolean;
  /** The vendor quota. @default 10/s, burst 20 */
  readonly limiter?: RouterLimiter;
  /** Which quota signals are a payer's (observed at the payer's key). @default all the account's */
  readonly quotaScope?: QuotaScopeOptions;
  /** Breakers keyed `node:segment`. @default time-window 50% over 30 s, min 10 calls */
  readonly breakers?: Breakers;
  /** Bearer tokens; none means no Authorization header. */
  readonly credentials?: Credentials;
  /** The NDC → GPI snapshot used to repair 21s. */
  readonly crosswalk?: Crosswalk;
  readonly audit?: AuditLog;
  readonly auditOptions?: AuditOptions;
  readonly deadLetters?: DeadLetterQueue;
  /**
   * Where each claim may be committed, written ahead of every send, and finished outcomes.
   * By default a durable file ledger at `ledgerPath` (survives kill -9); `MemoryLedger` for
   * tests and simulations (lost with the process); the Redis ledger when processes share a quota.
   * @default new JournalLedger(new FileJournal(ledgerPath))
   */
  readonly ledger?: Ledger;
  /**
   * The default ledger's file (JSON lines; its directory is made when missing). One process
   * per file. Ignored when `ledger` is given.
   * @default '.rxgate/ledger.jsonl' (under the working directory)
   */
  readonly ledgerPath?: string;
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
  /**
   * Reconcile in the background: every `everyMs` the router asks each maybe-committed claim's
   * pinned node again (as `router.reconcile()` does). Off by default.
   */
  readonly reconcile?: { readonly everyMs: number };
  /**
   * OpenTelemetry (`@opentelemetry/api`, an optional peer): the global meter and tracer unless
   * given here; `false` records nothing. Without the API installed, nothing is recorded.
   */
  readonly telemetry?: RouterTelemetryOptions | false;
}

export interface SubmitOptions {
  /** @default 'pos' */
  readonly lane?: Lane;
  /** Segment for the deadline budget and the breaker key (`retail`, `specialty`, …). @default 'retail' */
  readonly segment?: string;
  /** Aborting ends the claim (dead-lettered `aborted`, or needs-reconciliation when it may be committed). */
  readonly signal?: AbortSignal;
  /** Override the deadline (absolute, router clock). */
  readonly deadline?: number;
  /**
   * The node the claim may already be committed on (a dead letter's `pinnedNode`): the claim
   * goes only there, whatever this router's ledger knows.
   */
  readonly pinnedNode?: string;
}

/** The shortest idempotency secret accepted: an HMAC-SHA256 key of 32 bytes. */
export const MIN_SECRET_BYTES = 32;

const DEFAULT_LANES: LaneBudgets = {
  pos: { default: 800, retail: 800, specialty: 1200 },
  batch: { default: 3_600_000 },
};

/** The options with every default filled in, checked once at `createRouter`. */
export interface Resolved {
  readonly nodes: readonly RouterNode[];
  readonly shared: boolean;
  readonly parity: (node: string) => boolean;
  readonly limiter: RouterLimiter;
  readonly quotaScope: QuotaScope;
  readonly breakers: Breakers;
  readonly credentials: Credentials | undefined;
  readonly crosswalk: Crosswalk | undefined;
  readonly audit: AuditLog;
  readonly auditBacklogLimit: number;
  readonly auditRetryBaseMs: number;
  readonly deadLetters: DeadLetterQueue;
  readonly ledger: Ledger;
  readonly negativeCache: NegativeCache;
  readonly negativeTtlMs: number;
  readonly transport: Transport;
  readonly secret: string;
  readonly lanes: LaneBudgets;
  readonly retry: {
    readonly transient: number;
    readonly ambiguous: number;
    readonly baseMs: number;
    readonly capMs: Readonly<Record<Lane, number>>;
  };
  readonly catalogue: Catalogue | undefined;
  readonly clock: Clock;
  readonly random: () => number;
  readonly logger: Logger | undefined;
  readonly onEvent: ((event: RouterEvent) => void) | undefined;
  readonly metrics: Metrics | undefined;
  readonly telemetry: RouterTelemetryOptions | false | undefined;
}

/** Checks every option (a {@link RouterConfigError} naming the first bad one) and fills in defaults. */
export function resolveOptions(options: RouterOptions): Resolved {
  const nodes = options.nodes;
  if (!Array.isArray(nodes) || nodes.length < 1 || nodes.length > 2)
    throw new RouterConfigError('nodes', 'must hold one or two nodes');
  const names = new Set<string>();
  for (const [i, n] of nodes.entries()) {
    if (typeof n?.name !== 'string' || n.name === '')
      throw new RouterConfigError(`nodes.${i}.name`, 'must be a non-empty string');
    if (names.has(n.name)) throw new RouterConfigError(`nodes.${i}.name`, `must be unique (${n.name} twice)`);
    names.add(n.name);
    let url: URL;
    try {
      url = new URL(n.url);
    } catch {
      throw new RouterConfigError(`nodes.${i}.url`, 'must be an absolute URL');
    }
    // Anything else (ftp:, file:) is a config mistake, never a claim whose answer was lost.
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new RouterConfigError(`nodes.${i}.url`, 'must be an http: or https: URL');
  }
  // Required: without a stable secret the key would change across restarts; a short one
  // weakens the HMAC (32 random bytes or more, as for any HMAC-SHA256 key).
  if (
    typeof options.idempotencySecret !== 'string' ||
    Buffer.byteLength(options.idempotencySecret, 'utf8') < MIN_SECRET_BYTES
  )
    throw new RouterConfigError(
      'idempotencySecret',
      `must be a string of at least ${MIN_SECRET_BYTES} bytes (random), the same in every process`,
    );
  const lanes = options.lanes ?? DEFAULT_LANES;
  for (const lane of ['pos', 'batch'] as const) {
    const d = lanes[lane]?.default;
    if (typeof d !== 'number' || !(d > 0))
      throw new RouterConfigError(`lanes.${lane}.default`, 'must be a positive number of milliseconds');
  }
  const backlogLimit = options.auditOptions?.backlogLimit ?? 100_000;
  if (!(Number.isInteger(backlogLimit) && backlogLimit >= 0))
    throw new RouterConfigError('auditOptions.backlogLimit', 'must be a whole number >= 0');
  const retryBaseMs = options.auditOptions?.retryBaseMs ?? 100;
  if (!(retryBaseMs > 0))
    throw new RouterConfigError('auditOptions.retryBaseMs', 'must be a positive number');
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  return {
    nodes,
    shared: options.sharedIdempotency === true,
    parity: options.parity ?? (() => true),
    limiter: options.limiter ?? createLimiter({ account: { ratePerSecond: 10, burst: 20 }, clock }),
    quotaScope: resolveQuotaScope(options.quotaScope),
    breakers:
      options.breakers ??
      createBreakers({
        clock,
        random,
        defaults: {
          policy: { kind: 'time-window', windowMs: 30_000, minimumCalls: 10, failureRate: 0.5 },
          openDuration: 5_000,
        },
      }),
    credentials: options.credentials,
    crosswalk: options.crosswalk,
    audit: options.audit ?? new MemoryAuditLog(),
    auditBacklogLimit: backlogLimit,
    auditRetryBaseMs: retryBaseMs,
    deadLetters: options.deadLetters ?? new MemoryDeadLetterQueue(),
    ledger:
      options.ledger ??
      new JournalLedger(new FileJournal(options.ledgerPath ?? '.rxgate/ledger.jsonl'), { clock }),
    negativeCache: options.negativeCache ?? new MemoryNegativeCache(clock),
    negativeTtlMs: options.negativeCacheTtlMs ?? 600_000,
    transport: options.transport ?? undiciTransport(),
    secret: options.idempotencySecret,
    lanes,
    retry: {
      transient: options.retry?.transientRetries ?? 2,
      ambiguous: options.retry?.ambiguousRetries ?? 2,
      baseMs: options.retry?.baseMs ?? 50,
      capMs: options.retry?.capMs ?? { pos: 400, batch: 30_000 },
    },
    catalogue: options.catalogue,
    clock,
    random,
    logger: options.logger,
    onEvent: options.onEvent,
    metrics: options.metrics,
    telemetry: options.telemetry,
  };
}
