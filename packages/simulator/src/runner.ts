import { createWriteStream, type WriteStream } from 'node:fs';
import { createBreakers } from '@rxgate/breaker';
import {
  type AbortSignalLike,
  type Clock,
  createLimiter,
  systemClock,
  type TimerHandle,
} from '@rxgate/ratelimit';
import { createRedisLimiter, type SharedLimiter } from '@rxgate/ratelimit/redis';
import {
  type AuditRecord,
  clientCredentials,
  createRouter,
  crosswalkSnapshot,
  functionTransport,
  JournalLedger,
  JsonlAuditLog,
  MemoryDeadLetterQueue,
  MemoryJournal,
  MemoryLedger,
  type Outcome,
  openFileLedger,
  type Router,
  type RouterEvent,
  type Transport,
  TransportError,
  undiciTransport,
} from '@rxgate/router';
import { RedisLedger, RedisNegativeCache } from '@rxgate/router/redis';
import { Redis } from 'ioredis';
import { type GeneratedClaim, makeClaim, rateAt } from './claims.js';
import { serveHandlers, vendorHandlers } from './handlers.js';
import { HdrHistogram } from './hdr.js';
import { PhiOracle } from './phi-oracle.js';
import { PhiScanner } from './phi-scan.js';
import { exponentialMs, stream } from './random.js';
import { type ReconciliationCounts, reconcileAtEnd } from './reconciliation.js';
import { type Scenario, scenarioHash } from './scenario.js';
import { Series } from './series.js';
import { foreignKeys, foreignKeysWarning, newRunId } from './store-namespace.js';
import { type NodeName, VendorModel } from './vendor-model.js';
import { VirtualClock } from './virtual-clock.js';

/** Where the claims go. */
export type RunMode = 'virtual' | 'loopback' | 'target';

export interface RunOptions {
  /** `virtual` (default): in process, on the virtual clock. `loopback`: real HTTP to the vendor model's msw handlers on 127.0.0.1 at the real rate. `target`: real HTTP to `target`. */
  readonly mode?: RunMode;
  readonly target?: string;
  readonly fallbackTarget?: string;
  /** Client credentials for a target's `/oauth/token` (none: no Authorization header). */
  readonly credentials?: { readonly clientId: string; readonly clientSecret: string };
  /** Claims to send instead of generated ones (`target` mode; JSON lines of wire-form claims). */
  readonly claims?: ReadonlyArray<Record<string, unknown>>;
  /** The file the claims came from, for the replay line. */
  readonly claimsFile?: string;
  /** The file line of each claim (blank lines skipped), to name an invalid one. @default index + 1 */
  readonly claimLines?: readonly number[];
  /** Write every router log line here (JSON lines). */
  readonly logFile?: string;
  /** Write the audit log here (JSON lines, fsync at each outcome). */
  readonly auditFile?: string;
  /**
   * `target` mode: the router's durable ledger file. A run killed (kill -9) and started again
   * with the same claims never pays one twice. @default '.rxgate/target-ledger.jsonl'
   */
  readonly ledgerFile?: string;
  /**
   * Texts of each kind (log line, event, audit record, outcome) the independent PHI oracle
   * searches: the first this many, then a thin sample. `Infinity`: every text (property tests).
   * @default 200
   */
  readonly phiOracleSample?: number;
  /** Keep every audit record in memory for the claims that break an invariant (replay). @default true under 50,000 claims */
  readonly keepAudit?: boolean;
  /** Keep the audit trail of these claims (by correlation id) as well as of the broken ones. */
  readonly traceCorrelationIds?: readonly string[];
  /** Submit claims as fast as the router admits them, ignoring the traffic rate (a claims file). */
  readonly asFastAsAdmitted?: boolean;
  /** A shared store (`redis://…`): the quota, the ledger and the negative cache live in Redis. Real-time modes only. */
  readonly store?: string;
  /**
   * The namespace of every key this run writes to the store. Processes of one run share it;
   * another run must not (its ledger would answer this run's claims as already paid).
   * @default `rxgate:sim:<a fresh run id>`
   */
  readonly storePrefix?: string;
  /** Submit only this share of the traffic (worker `worker` of `of`): the other workers send the rest. */
  readonly share?: { readonly worker: number; readonly of: number };
  /** Called about every simulated bucket. */
  readonly onProgress?: (p: {
    readonly submitted: number;
    readonly settled: number;
    readonly total: number | undefined;
    readonly elapsedMs: number;
  }) => void;
}

/** One claim's trace, for the claims that broke an invariant. */
export interface ClaimTrace {
  readonly index: number;
  readonly correlationId: string;
  readonly lane: string;
  readonly records: readonly AuditRecord[];
}

export interface RunResult {
  readonly scenario: Scenario;
  readonly hash: string;
  readonly mode: RunMode;
  /** The target URL and the claims file, in `target` mode. */
  readonly target?: string;
  readonly claimsFile?: string;
  /** Claims the router refused as invalid: the claims-file line and the fields at fault (never the values). */
  readonly invalidClaims: ReadonlyArray<{ readonly line: number; readonly fields: readonly string[] }>;
  /** What the user should know before trusting the run (another run's keys in the store). */
  readonly warnings: readonly string[];
  /** The namespace of the run's keys in the store, with `store`. */
  readonly storePrefix?: string;
  /** Simulated (virtual) or real milliseconds from the first claim to the last outcome. */
  readonly spanMs: number;
  readonly claims: number;
  readonly outcomes: Readonly<Record<string, number>>;
  /** Claims left maybe-committed (`needs-reconciliation`) by the run, and after `router.reconcile()` at its end. */
  readonly reconciliation: ReconciliationCounts;
  readonly rejectCodes: Readonly<Record<string, number>>;
  /** Vendor answers by status (`reset`, `refused`, `hang` for lost connections); empty against a target. */
  readonly statuses: Readonly<Record<string, number>>;
  readonly latency: Readonly<Record<'all' | 'pos' | 'batch', HdrHistogram>>;
  readonly attempts: number;
  readonly throttledAnswers: number;
  readonly failovers: number;
  readonly adjudicatedAnswers: number;
  /** Vendor quota, requests per second (undefined against a target). */
  readonly quotaPerSecond: number | undefined;
  readonly breakerTransitions: ReadonlyArray<{
    readonly at: number;
    readonly key: string;
    readonly from: string;
    readonly to: string;
    readonly reason: string;
  }>;
  readonly series: Series;
  readonly invariants: Invariants;
  /** Claims that broke an invariant, with their audit trail. */
  readonly broken: readonly ClaimTrace[];
  readonly slowest: ReadonlyArray<{
    readonly correlationId: string;
    readonly lane: string;
    readonly elapsedMs: number;
    readonly kind: string;
  }>;
  readonly deadLettered: ReadonlyArray<{ readonly correlationId: string; readonly reason: string }>;
  readonly faultsFired: readonly number[];
}

export interface Invariants {
  /** Claim keys the vendor paid more than once (empty when checked and kept). */
  readonly paidTwice: readonly string[];
  readonly paidTwiceChecked: boolean;
  /** Claims that did not end in exactly one outcome. */
  readonly notExactlyOnce: readonly number[];
  readonly phiFound: ReadonlyArray<{ readonly where: string; readonly sample: string }>;
  readonly phiTextsScanned: number;
  /** The independent oracle: plain substring search of every PHI value over a sample of each kind of text. */
  readonly phiOracleFound: ReadonlyArray<{ readonly where: string; readonly sample: string }>;
  readonly phiOracleTexts: number;
  readonly phiOracleValues: number;
  /** Most half-open probes in flight at once, per breaker, and the bound. */
  readonly maxProbesInFlight: number;
  readonly probeBound: number;
  /** pos claims that finished after their deadline (+1 ms). */
  readonly deadlineMisses: readonly number[];
  /** After the last fault window healed: when throughput was back, and the allowed time. */
  readonly liveness: {
    readonly applicable: boolean;
    readonly recoveredAfterMs: number | undefined;
    readonly withinMs: number;
    readonly ok: boolean;
  };
  /** Fault windows (by index) that never fired. */
  readonly faultsNeverFired: readonly number[];
}

export const SIM_EPOCH = Date.UTC(2026, 10, 30, 0, 0, 0);
// How many recent claims a resubmission may pick from.
const RESUBMIT_POOL = 10_000;
// Verdicts that mean the vendor adjudicated the claim: goodput.
const ADJUDICATED = new Set(['adjudicated', 'terminal-reject', 'repairable', 'duplicate', 'routing-reject']);
/** How late a pos claim may finish on real timers before it counts as a missed deadline. */
export const REAL_TIME_TOLERANCE_MS = 25;
const SECRET = 'rxgate-simulator-idempotency-secret';
const NEVER = new Promise<never>(() => {});

/** Runs a scenario to the end and checks every invariant. Deterministic in `virtual` mode. */
export async function runScenario(scenario: Scenario, options: RunOptions = {}): Promise<RunResult> {
  const mode = options.mode ?? 'virtual';
  // Against a target nothing is injected: its faults are its own. Claims from a file are the
  // traffic, so the scenario's bursts do not apply either (a burst 9 h ahead kept the process alive).
  const s: Scenario =
    mode === 'target' && options.share === undefined
      ? {
          ...scenario,
          faults: [],
          traffic: { ...scenario.traffic, ...(options.claims ? { bursts: [] } : {}) },
        }
      : scenario;
  const hash = scenarioHash(s);
  const virtual = mode === 'virtual';
  const vclock = virtual ? new VirtualClock(SIM_EPOCH) : undefined;
  const clock: Clock = vclock ?? systemClock;
  const start = clock.now();
  const model = mode === 'target' ? undefined : new VendorModel(s, clock, start);
  const targetStatuses = new Map<string, number>();

  // Where requests go.
  let transport: Transport;
  const servers: Array<{ close(): Promise<void> }> = [];
  const urls: Record<NodeName, string> = { primary: 'http://primary.sim', fallback: 'http://fallback.sim' };
  if (virtual) transport = functionTransport(virtualHandler(model!, clock, s.client.readTimeoutMs));
  else {
    transport = undiciTransport({ readTimeoutMs: s.client.readTimeoutMs, connectTimeoutMs: 1000 });
    if (mode === 'loopback') {
      for (const node of ['primary', 'fallback'] as const) {
        if (node === 'fallback' && !s.nodes.fallback) continue;
        const server = await serveHandlers((base) => vendorHandlers(model!, node, base));
        servers.push(server);
        urls[node] = server.url;
      }
    } else {
      if (options.target === undefined) throw new Error('target mode needs a target URL');
      urls.primary = options.target;
      if (options.fallbackTarget !== undefined) urls.fallback = options.fallbackTarget;
      // No vendor model to ask: what the target answered is counted as it arrives.
      transport = countingTransport(transport, targetStatuses);
    }
  }
  const hasFallback = mode === 'target' ? options.fallbackTarget !== undefined : s.nodes.fallback;

  // What we watch.
  const span = s.traffic.durationMs ?? (s.traffic.claims! / s.traffic.ratePerSecond) * 1000;
  const series = new Series(Math.max(1000, Math.ceil(span / 300 / 1000) * 1000));
  const phi = new PhiScanner();
  const oracle = new PhiOracle(options.phiOracleSample);
  const latency = { all: new HdrHistogram(), pos: new HdrHistogram(), batch: new HdrHistogram() };
  const outcomes: Record<string, number> = {};
  const rejectCodes: Record<string, number> = {};
  const transitions: Array<{ at: number; key: string; from: string; to: string; reason: string }> = [];
  let attempts = 0;
  let throttledAnswers = 0;
  let failovers = 0;
  let adjudicatedAnswers = 0;
  const probes = new Map<string, number>();
  let maxProbes = 0;
  const rel = () => clock.now() - start;
  // "Deadline plus one timer tick": exactly 1 ms on the virtual clock; on real timers, the
  // event loop's own lateness under load (documented in the README).
  const tolerance = virtual ? 1 : REAL_TIME_TOLERANCE_MS;

  let log: WriteStream | undefined;
  if (options.logFile) log = createWriteStream(options.logFile, { flags: 'w' });
  const logLine = (level: string) => (obj: object, msg?: string) => {
    const line = JSON.stringify({ level, t: Math.round(rel()), msg, ...obj });
    phi.scan('log', line);
    oracle.offer('log', line);
    log?.write(`${line}\n`);
  };
  // Audit records are kept while a claim is in flight, and afterwards only if it broke an invariant.
  const keepAudit = options.keepAudit ?? true;
  const RESOLVED = Promise.resolve();
  const auditByCorrelation = new Map<string, AuditRecord[]>();
  const traced = new Set(options.traceCorrelationIds ?? []);
  const fileAudit = options.auditFile ? new JsonlAuditLog(options.auditFile) : undefined;
  let fileWrites: Promise<unknown> = Promise.resolve();
  const audit = {
    append(r: AuditRecord) {
      phi.scanValue('audit', r);
      oracle.offer('audit', r);
      if (keepAudit) {
        let list = auditByCorrelation.get(r.correlationId);
        if (list === undefined) {
          list = [];
          auditByCorrelation.set(r.correlationId, list);
        }
        list.push(r);
      }
      if (fileAudit === undefined) return RESOLVED;
      // On the virtual clock, waiting for the disk would let simulated time run on while the
      // claim waits: the file is written in order, and awaited once, at the end.
      if (virtual) {
        fileWrites = fileWrites.then(() => fileAudit.append(r)).catch(() => undefined);
        return RESOLVED;
      }
      return fileAudit.append(r);
    },
    close: async () => {
      await fileWrites;
      await fileAudit?.close();
    },
  };
  const onEvent = (e: RouterEvent) => {
    phi.scanValue('event', e);
    oracle.offer('event', e);
    const b = series.at(rel());
    if (e.type === 'attempt') {
      attempts++;
      b.sent++;
      if (e.verdict === 'throttled') {
        throttledAnswers++;
        b.throttled++;
      } else if (ADJUDICATED.has(e.verdict)) {
        adjudicatedAnswers++;
        b.adjudicated++;
      }
    } else if (e.type === 'decision' && e.decision.startsWith('failover')) {
      failovers++;
      b.failedOver++;
    } else if (e.type === 'breaker') {
      transitions.push({
        at: Math.round(e.at - start),
        key: e.key,
        from: e.from,
        to: e.to,
        reason: e.reason,
      });
    }
  };

  const { ratePerSecond, burst, concurrency } = s.client.limiter;
  let redis: Redis | undefined;
  let sharedLimiter: SharedLimiter | undefined;
  let redisLedger: RedisLedger | undefined;
  const storePrefix = options.storePrefix ?? `rxgate:sim:${newRunId()}`;
  const warnings: string[] = [];
  if (options.store !== undefined) {
    if (virtual) throw new Error('a shared store runs on real time: use --loopback or --target with --store');
    redis = new Redis(options.store, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 1000,
    });
    redis.on('error', () => {});
    if (redis.status !== 'ready') await new Promise((r) => redis!.once('ready', r));
    const others = options.share === undefined ? await foreignKeys(redis, storePrefix) : [];
    if (others.length > 0) warnings.push(foreignKeysWarning(others, storePrefix));
    sharedLimiter = createRedisLimiter({
      redis,
      name: `${storePrefix}:limiter`,
      account: { ratePerSecond, burst },
      clock,
    });
    redisLedger = new RedisLedger({ redis, clock, prefix: `${storePrefix}:ledger` });
  }
  const makeLimiter = () =>
    createLimiter({
      account: { ratePerSecond, burst, ...(concurrency === undefined ? {} : { concurrency }) },
      clock,
    });
  const b = s.client.breaker;
  const makeBreakers = () =>
    createBreakers({
      clock,
      random: stream(s.seed, 'breakers'),
      defaults: {
        policy: {
          kind: 'time-window',
          windowMs: b.windowMs,
          minimumCalls: b.minimumCalls,
          failureRate: b.failureRate,
        },
        openDuration: b.openMs,
        maxProbes: b.maxProbes,
        successesToClose: b.successesToClose,
      },
      onEvent: (key, e) => {
        // The half-open bound, watched from outside: probes of the current episode in flight.
        if (e.type === 'state-change') probes.set(key, 0);
        else if (e.type === 'probe-started') {
          const n = (probes.get(key) ?? 0) + 1;
          probes.set(key, n);
          if (n > maxProbes) maxProbes = n;
        } else if (e.type === 'probe-finished') probes.set(key, Math.max(0, (probes.get(key) ?? 0) - 1));
      },
    });
  const nodes = [
    { name: 'primary', url: urls.primary },
    ...(hasFallback ? [{ name: 'fallback', url: urls.fallback }] : []),
  ];
  const client =
    mode === 'target'
      ? options.credentials
      : s.vendor.tokenTtlSeconds !== undefined
        ? { clientId: 'rxgate-sim', clientSecret: 'sim-secret' }
        : undefined;
  // The process the router runs in: a generation dies at a client-restart window, and the next
  // one starts from the same durable journal (kill -9: nothing the dead one started leaves it).
  const restarts = s.faults.some((f) => f.kind === 'client-restart');
  const journal = restarts ? new MemoryJournal() : undefined;
  interface Generation {
    readonly router: Router;
    readonly limiter: ReturnType<typeof makeLimiter>;
    readonly deadLetters: MemoryDeadLetterQueue;
    dead: boolean;
  }
  const build = async (): Promise<Generation> => {
    const limiter = makeLimiter();
    const breakers = makeBreakers();
    const deadLetters = new MemoryDeadLetterQueue();
    const gen: Generation = { router: undefined as unknown as Router, limiter, deadLetters, dead: false };
    const guard = <T>(p: Promise<T>): Promise<T> =>
      p.then(
        (v) => (gen.dead ? NEVER : v),
        (e) => (gen.dead ? NEVER : Promise.reject(e)),
      );
    const genTransport: Transport = restarts
      ? {
          send: (n, r, sig) => (gen.dead ? NEVER : guard(transport.send(n, r, sig))),
          close: () => Promise.resolve(),
        }
      : transport;
    const ledger =
      mode === 'target' && journal === undefined
        ? await openFileLedger(options.ledgerFile ?? '.rxgate/target-ledger.jsonl', { clock })
        : journal === undefined
          ? undefined
          : await JournalLedger.open(
              {
                read: () => journal.read(),
                append: (lines) => (gen.dead ? NEVER : journal.append(lines)),
                rewrite: (lines) => (gen.dead ? NEVER : journal.rewrite(lines)),
                close: () => Promise.resolve(),
              },
              { clock },
            );
    (gen as { router: Router }).router = createRouter({
      nodes,
      sharedIdempotency: s.nodes.sharedIdempotency,
      idempotencySecret: SECRET,
      transport: genTransport,
      deadLetters,
      limiter: sharedLimiter ?? limiter,
      ...(redis && redisLedger
        ? { ledger: redisLedger, negativeCache: new RedisNegativeCache(redis, `${storePrefix}:neg`) }
        : { ledger: ledger ?? new MemoryLedger() }),
      breakers,
      ...(client
        ? {
            credentials: clientCredentials({
              clients: { primary: client, fallback: client },
              transport,
              clock,
              // The router's default refreshes 60 s early: with tokens of 60 s (credential-expiry)
              // it fetched one per claim and never met a revoked token. A tenth of the lifetime.
              marginMs: Math.min(60_000, (s.vendor.tokenTtlSeconds ?? 300) * 100),
            }),
          }
        : {}),
      crosswalk: crosswalkSnapshot(
        `sim-${hash}`,
        Object.fromEntries(
          Object.entries(s.client.crosswalk).map(([k, e]) => [
            k,
            e.ndc === undefined ? { gpi: e.gpi } : { gpi: e.gpi, ndc: e.ndc },
          ]),
        ),
      ),
      audit,
      lanes: {
        pos: { default: s.client.budgets.pos.retail ?? 800, ...s.client.budgets.pos },
        batch: { default: s.client.budgets.batchMs },
      },
      clock,
      random: stream(s.seed, 'router'),
      logger: {
        debug: logLine('debug'),
        info: logLine('info'),
        warn: logLine('warn'),
        error: logLine('error'),
      },
      onEvent,
    });
    return gen;
  };
  let gen = await build();

  // Traffic.
  const trafficRandom = stream(s.seed, 'traffic');
  // Recent claims, for resubmissions to pick from (bounded: a day holds half a million claims),
  // and per submitted index only what the invariants need: its lane and segment.
  const pool: GeneratedClaim[] = [];
  const lanes: Array<'pos' | 'batch'> = [];
  const segments: string[] = [];
  const remember = (c: GeneratedClaim) => {
    if (pool.length < RESUBMIT_POOL) pool.push(c);
    else pool[c.index % RESUBMIT_POOL] = c;
  };
  const settleCount: number[] = [];
  const elapsed: number[] = [];
  const correlation: string[] = [];
  const kinds: string[] = [];
  const deadLettered: Array<{ correlationId: string; reason: string }> = [];
  const invalidClaims: Array<{ line: number; fields: string[] }> = [];
  const limit = options.claims?.length ?? s.traffic.claims ?? Number.POSITIVE_INFINITY;
  let submitted = 0;
  let settled = 0;
  let trafficDone = false;
  let lastSettledAt = start;
  let resolveAll!: () => void;
  const allSettled = new Promise<void>((r) => {
    resolveAll = r;
  });

  let generatedCount = 0;
  const submitOne = () => {
    // With a share, every worker walks the same traffic and sends its own part of it.
    const at0 = generatedCount++;
    if (options.share !== undefined && at0 % options.share.of !== options.share.worker) {
      if (!options.claims) remember(makeClaim(s, at0, trafficRandom, pool));
      return;
    }
    const index = submitted++;
    let claim: GeneratedClaim;
    if (options.claims) {
      const raw = options.claims[at0]!;
      claim = {
        index,
        lane: s.traffic.lanes.pos >= s.traffic.lanes.batch ? 'pos' : 'batch',
        segment: 'retail',
        raw,
        phi: phiOf(raw),
      };
    } else claim = makeClaim(s, at0, trafficRandom, pool);
    remember(claim);
    lanes[index] = claim.lane;
    segments[index] = claim.segment;
    phi.add(claim.phi);
    oracle.add(claim.phi);
    settleCount[index] = 0;
    const at = clock.now();
    series.at(at - start).submitted++;
    track(index, claim.lane, claim.segment, at, () =>
      gen.router.submit(claim.raw, { lane: claim.lane, segment: claim.segment }),
    );
  };
  // Submits through the living generation; an outcome a dead one still produces is not heard
  // (the process is gone), and a restart sends the claim again.
  const unanswered = new Map<
    number,
    { lane: 'pos' | 'batch'; segment: string; at: number; send: () => Promise<Outcome> }
  >();
  const track = (
    index: number,
    lane: 'pos' | 'batch',
    segment: string,
    at: number,
    send: () => Promise<Outcome>,
  ) => {
    const g = gen;
    if (journal !== undefined) unanswered.set(index, { lane, segment, at, send });
    const claim = { lane, segment };
    send().then(
      (o: Outcome) => {
        if (g.dead) return;
        oracle.offer('outcome', o);
        unanswered.delete(index);
        settleCount[index]!++;
        const took = clock.now() - at;
        elapsed[index] = took;
        correlation[index] = o.correlationId;
        kinds[index] = o.kind;
        outcomes[o.kind] = (outcomes[o.kind] ?? 0) + 1;
        if (o.kind === 'rejected') for (const c of o.codes) rejectCodes[c] = (rejectCodes[c] ?? 0) + 1;
        if (o.kind === 'invalid' && invalidClaims.length < 1000)
          invalidClaims.push({
            line: options.claimLines?.[index] ?? index + 1,
            fields: o.issues.map((x) => x.field),
          });
        if (o.kind === 'dead-lettered' && deadLettered.length < 1000)
          deadLettered.push({ correlationId: o.correlationId, reason: o.reason });
        latency.all.record(took);
        latency[claim.lane].record(took);
        const bucket = series.at(clock.now() - start);
        bucket.latency[claim.lane].record(took);
        bucket.outcomes[o.kind] = (bucket.outcomes[o.kind] ?? 0) + 1;
        lastSettledAt = clock.now();
        const budget =
          claim.lane === 'pos'
            ? (s.client.budgets.pos[claim.segment] ?? s.client.budgets.pos.retail ?? 800)
            : Number.POSITIVE_INFINITY;
        if (settleCount[index] === 1 && took <= budget + tolerance && !traced.has(o.correlationId)) {
          auditByCorrelation.delete(o.correlationId);
        }
        if (++settled === submitted && trafficDone) resolveAll();
      },
      () => {
        if (g.dead) return;
        unanswered.delete(index);
        settleCount[index]!++;
        if (++settled === submitted && trafficDone) resolveAll();
      },
    );
  };
  // The runner's own timers (traffic, bursts, client faults, sampling): cancelled when every
  // claim has settled, so on real timers nothing of the run keeps the process alive.
  const ownTimers = new Set<TimerHandle>();
  const own = (ms: number, fn: () => void): TimerHandle => {
    const h = clock.setTimer(ms, () => {
      ownTimers.delete(h);
      fn();
    });
    ownTimers.add(h);
    return h;
  };
  // Client-side faults: a restart of the router's process, and the batch lane resubmitting
  // every dead letter and every claim left for reconciliation.
  for (const [i, f] of s.faults.entries()) {
    if (f.kind === 'client-restart')
      own(f.startMs, () => {
        model?.fired(i);
        gen.dead = true;
        void build().then((next) => {
          gen = next;
          for (const [index, u] of [...unanswered]) track(index, u.lane, u.segment, clock.now(), u.send);
        });
      });
    else if (f.kind === 'dead-letter-resubmit')
      own(f.startMs, () => {
        model?.fired(i);
        for (const letter of gen.deadLetters.take()) {
          const index = submitted++;
          lanes[index] = 'batch';
          segments[index] = 'retail';
          settleCount[index] = 0;
          const at = clock.now();
          series.at(at - start).submitted++;
          track(index, 'batch', 'retail', at, () => gen.router.resubmit(letter, { lane: 'batch' }));
        }
      });
  }
  const finishTraffic = () => {
    trafficDone = true;
    if (settled === submitted) resolveAll();
  };
  const spaced = options.asFastAsAdmitted === true;
  const scheduleNext = () => {
    const t = rel();
    if (generatedCount >= limit || (s.traffic.durationMs !== undefined && t >= s.traffic.durationMs)) {
      finishTraffic();
      return;
    }
    submitOne();
    const r = rateAt(s, t);
    const gap = spaced ? 0 : s.traffic.profile === 'constant' ? 1000 / r : exponentialMs(trafficRandom, r);
    own(gap, scheduleNext);
  };
  for (const burst of s.traffic.bursts) {
    own(burst.atMs, () => {
      for (let i = 0; i < burst.count && generatedCount < limit; i++) submitOne();
    });
  }
  own(0, scheduleNext);

  // Sample the vendor's quota and the limiter's rate once a bucket, until everything settled.
  const sample = () => {
    const bucket = series.at(rel() - 1);
    if (model) bucket.remaining = model.remaining('primary');
    if (sharedLimiter) {
      sharedLimiter.snapshot().then(
        (x) => {
          bucket.limiterRate = x.ratePerSecond;
        },
        () => undefined,
      );
    } else bucket.limiterRate = gen.limiter.snapshot().ratePerSecond;
    options.onProgress?.({
      submitted,
      settled,
      total: Number.isFinite(limit) ? limit : undefined,
      elapsedMs: rel(),
    });
    if (!(trafficDone && settled === submitted)) own(series.bucketMs, sample);
  };
  own(series.bucketMs, sample);

  if (vclock) await vclock.run();
  await allSettled;
  // At the end of the day, every claim left maybe-committed is asked again on its pinned node.
  const reconciliation = await reconcileAtEnd(gen.router, outcomes, vclock);
  for (const h of ownTimers) h.cancel();
  ownTimers.clear();
  await gen.router.close();
  sharedLimiter?.close();
  await redisLedger?.close();
  redis?.disconnect();
  await Promise.all(servers.map((x) => x.close()));
  if (log) await new Promise<void>((r) => log.end(r));

  // Invariants.
  const total = submitted;
  oracle.check();
  const notExactlyOnce: number[] = [];
  for (let i = 0; i < total; i++) if (settleCount[i] !== 1) notExactlyOnce.push(i);
  // Two payments standing at once, by content (a rebill after an accepted reversal is not).
  const paidTwice = model ? [...model.paidTwice] : [];
  const deadlineMisses: number[] = [];
  for (let i = 0; i < total; i++) {
    if (lanes[i] !== 'pos') continue;
    const budget = s.client.budgets.pos[segments[i]!] ?? s.client.budgets.pos.retail ?? 800;
    if ((elapsed[i] ?? 0) > budget + tolerance) deadlineMisses.push(i);
  }
  const liveness = checkLiveness(s, series, model?.quotaPerSecond, lastSettledAt - start);
  const faultsFired = model ? [...model.faultsFired] : s.faults.map(() => 0);
  const invariants: Invariants = {
    paidTwice,
    paidTwiceChecked: model !== undefined,
    notExactlyOnce,
    phiFound: phi.found,
    phiTextsScanned: phi.scanned,
    phiOracleFound: oracle.found,
    phiOracleTexts: oracle.searched,
    phiOracleValues: oracle.valuesChecked,
    maxProbesInFlight: maxProbes,
    probeBound: s.client.breaker.maxProbes,
    deadlineMisses,
    liveness,
    faultsNeverFired: model ? faultsFired.flatMap((n, i) => (n === 0 ? [i] : [])) : [],
  };
  const brokenIdx = [...new Set([...notExactlyOnce, ...deadlineMisses])].slice(0, 50);
  const tracedIdx = [...correlation.keys()].filter((i) => traced.has(correlation[i] ?? ''));
  const broken: ClaimTrace[] = [...new Set([...brokenIdx, ...tracedIdx])].map((i) => ({
    index: i,
    correlationId: correlation[i] ?? '',
    lane: lanes[i]!,
    records: auditByCorrelation.get(correlation[i] ?? '') ?? [],
  }));
  const slowest = [...elapsed.keys()]
    .filter((i) => elapsed[i] !== undefined)
    .sort((a, b) => elapsed[b]! - elapsed[a]! || a - b)
    .slice(0, 10)
    .map((i) => ({
      correlationId: correlation[i]!,
      lane: lanes[i]!,
      elapsedMs: Math.round(elapsed[i]! * 100) / 100,
      kind: kinds[i]!,
    }));

  return {
    scenario: s,
    hash,
    mode,
    ...(mode === 'target' && options.target !== undefined ? { target: options.target } : {}),
    ...(options.claimsFile !== undefined ? { claimsFile: options.claimsFile } : {}),
    invalidClaims,
    warnings,
    ...(options.store !== undefined ? { storePrefix } : {}),
    spanMs: lastSettledAt - start,
    claims: total,
    outcomes,
    reconciliation,
    rejectCodes,
    statuses: Object.fromEntries(model ? model.statuses : targetStatuses),
    latency,
    attempts,
    throttledAnswers,
    failovers,
    adjudicatedAnswers,
    quotaPerSecond: model?.quotaPerSecond,
    breakerTransitions: transitions,
    series,
    invariants,
    broken,
    slowest,
    deadLettered,
    faultsFired,
  };
}

function virtualHandler(model: VendorModel, clock: Clock, readTimeoutMs: number) {
  return (
    node: { name: string },
    req: { path: string; headers: Readonly<Record<string, string>>; body: string },
    signal: AbortSignalLike,
  ) => {
    const action = model.handle(node.name as NodeName, req);
    const wait = (ms: number): Promise<void> =>
      new Promise((resolve, reject) => {
        if (signal.aborted) {
          reject(new TransportError('sent', 'ABORTED'));
          return;
        }
        const timedOut = ms > readTimeoutMs;
        const onAbort = () => {
          timer.cancel();
          reject(new TransportError('sent', 'ABORTED'));
        };
        const timer = clock.setTimer(Math.min(ms, readTimeoutMs), () => {
          signal.removeEventListener('abort', onAbort);
          if (timedOut) reject(new TransportError('sent', 'UND_ERR_HEADERS_TIMEOUT'));
          else resolve();
        });
        signal.addEventListener('abort', onAbort, { once: true });
      });
    switch (action.kind) {
      case 'respond':
        return wait(action.delayMs).then(() => ({
          status: action.status,
          headers: action.headers,
          body: action.body,
        }));
      case 'refuse':
        return wait(action.delayMs).then(() => {
          throw new TransportError('not-sent', 'ECONNREFUSED');
        });
      case 'reset':
        return wait(action.delayMs).then(() => {
          throw new TransportError('sent', 'ECONNRESET');
        });
      case 'hang':
        return wait(Number.POSITIVE_INFINITY).then(() => {
          throw new TransportError('sent', 'UND_ERR_HEADERS_TIMEOUT');
        });
    }
  };
}

function checkLiveness(
  s: Scenario,
  series: Series,
  quota: number | undefined,
  spanMs: number,
): Invariants['liveness'] {
  const withinMs = s.liveness.withinMs;
  if (s.faults.length === 0) return { applicable: false, recoveredAfterMs: undefined, withinMs, ok: true };
  const healedAt = Math.max(...s.faults.map((f) => f.endMs));
  const after = series.buckets.filter((b) => b.t >= healedAt && b.t + series.bucketMs <= spanMs);
  // Throughput "returns to the quota": adjudicated answers reach 90 % of what the traffic and
  // the quota allow in a bucket (the lesser of the claims offered and the quota).
  const capacity =
    Math.min(quota ?? Number.POSITIVE_INFINITY, s.client.limiter.ratePerSecond) * (series.bucketMs / 1000);
  const busy = after.filter((b) => b.submitted >= 1);
  if (busy.length < 2) return { applicable: false, recoveredAfterMs: undefined, withinMs, ok: true };
  for (const b of busy) {
    const expected = Math.min(capacity, b.submitted);
    if (b.adjudicated >= 0.9 * expected) {
      const recoveredAfterMs = Math.max(0, b.t - healedAt);
      return { applicable: true, recoveredAfterMs, withinMs, ok: recoveredAfterMs <= withinMs };
    }
  }
  return { applicable: true, recoveredAfterMs: undefined, withinMs, ok: false };
}

function phiOf(raw: Record<string, unknown>): string[] {
  // A date of birth may come as a number from a claims file: it is PHI all the same.
  return ['302-C2', '310-CA', '311-CB', '304-C4'].flatMap((k) =>
    typeof raw[k] === 'string' || typeof raw[k] === 'number' ? [String(raw[k])] : [],
  );
}

/** A transport that counts answers by status, and failures by what they were (`refused`, `dns`, `tls`, …). */
function countingTransport(inner: Transport, counts: Map<string, number>): Transport {
  const bump = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
  return {
    async send(node, request, signal) {
      try {
        const r = await inner.send(node, request, signal);
        bump(String(r.status));
        return r;
      } catch (e) {
        bump(transportFailure(e));
        throw e;
      }
    },
    close: () => inner.close(),
  };
}

/** A transport failure by kind, from its code; the code itself when it is none of the known kinds. */
export function transportFailure(e: unknown): string {
  const code = String(
    (e as { transportCode?: unknown; code?: unknown })?.transportCode ??
      (e as { code?: unknown })?.code ??
      'unknown',
  );
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (
    code.startsWith('ERR_TLS') ||
    code.startsWith('ERR_SSL') ||
    /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code)
  )
    return 'tls';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect-timeout';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'timeout';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'reset';
  if (code === 'ABORTED' || code === 'UND_ERR_ABORTED') return 'aborted';
  return `transport:${code}`;
}
