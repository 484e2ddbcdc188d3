// The client a scenario describes: the router with its limiter, breakers, ledger, credentials
// and crosswalk, built once per process generation (a client-restart window kills one and the
// next starts from the same durable journal: kill -9, nothing the dead one started leaves it).
import { type BreakerEvent, createBreakers } from '@rxgate/breaker';
import { type Clock, createLimiter } from '@rxgate/ratelimit';
import {
  clientCredentials,
  createRouter,
  crosswalkSnapshot,
  JournalLedger,
  MemoryDeadLetterQueue,
  type MemoryJournal,
  MemoryLedger,
  openFileLedger,
  type Router,
  type RouterEvent,
  type RouterOptions,
  type Transport,
} from '@rxgate/router';
import { RedisNegativeCache } from '@rxgate/router/redis';
import { stream } from './random.js';
import { clientCredentialsFor, DEFAULT_POS_BUDGET_MS, tokenMarginMs } from './run-plan.js';
import type { RunMode, RunOptions } from './run-types.js';
import type { Scenario } from './scenario.js';
import type { SharedStore } from './shared-store.js';

const SECRET = 'rxgate-simulator-idempotency-secret';
const NEVER = new Promise<never>(() => {});

/** One process of the client: its router, limiter and dead letters; `dead` once a restart killed it. */
export interface Generation {
  readonly router: Router;
  readonly limiter: ReturnType<typeof createLimiter>;
  readonly deadLetters: MemoryDeadLetterQueue;
  dead: boolean;
}

export interface ClientSetup {
  readonly s: Scenario;
  readonly hash: string;
  readonly mode: RunMode;
  readonly options: Pick<RunOptions, 'credentials' | 'ledgerFile' | 'telemetry'>;
  readonly clock: Clock;
  readonly transport: Transport;
  readonly nodes: RouterOptions['nodes'];
  readonly store: SharedStore | undefined;
  /** The durable journal generations share, when the scenario restarts the client. */
  readonly journal: MemoryJournal | undefined;
  readonly storePrefix: string;
  readonly audit: NonNullable<RouterOptions['audit']>;
  readonly logger: NonNullable<RouterOptions['logger']>;
  readonly onEvent: (e: RouterEvent) => void;
  readonly onBreakerEvent: (key: string, e: BreakerEvent) => void;
}

/** The router's nodes: the primary, and the fallback when there is one. */
export function routerNodes(
  urls: { readonly primary: string; readonly fallback: string },
  hasFallback: boolean,
) {
  return [
    { name: 'primary', url: urls.primary },
    ...(hasFallback ? [{ name: 'fallback', url: urls.fallback }] : []),
  ];
}

/** Builds one generation of the client. */
export async function buildGeneration(c: ClientSetup): Promise<Generation> {
  const { s, clock } = c;
  const { ratePerSecond, burst, concurrency } = s.client.limiter;
  const limiter = createLimiter({
    account: { ratePerSecond, burst, ...(concurrency === undefined ? {} : { concurrency }) },
    clock,
  });
  const b = s.client.breaker;
  const breakers = createBreakers({
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
    onEvent: c.onBreakerEvent,
  });
  const deadLetters = new MemoryDeadLetterQueue();
  const gen: Generation = { router: undefined as unknown as Router, limiter, deadLetters, dead: false };
  const journal = c.journal;
  // A dead generation hears nothing more: what it still had in flight never answers.
  const guard = <T>(p: Promise<T>): Promise<T> =>
    p.then(
      (v) => (gen.dead ? NEVER : v),
      (e) => (gen.dead ? NEVER : Promise.reject(e)),
    );
  const transport = c.transport;
  const genTransport: Transport =
    journal !== undefined
      ? {
          send: (n, r, sig) => (gen.dead ? NEVER : guard(transport.send(n, r, sig))),
          close: () => Promise.resolve(),
        }
      : transport;
  const ledger =
    c.mode === 'target' && journal === undefined
      ? await openFileLedger(c.options.ledgerFile ?? '.rxgate/target-ledger.jsonl', { clock })
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
  const client = clientCredentialsFor(c.mode, c.options.credentials, s.vendor.tokenTtlSeconds);
  (gen as { router: Router }).router = createRouter({
    nodes: c.nodes,
    sharedIdempotency: s.nodes.sharedIdempotency,
    idempotencySecret: SECRET,
    transport: genTransport,
    deadLetters,
    limiter: c.store?.limiter ?? limiter,
    ...(c.store
      ? {
          ledger: c.store.ledger,
          negativeCache: new RedisNegativeCache(c.store.redis, `${c.storePrefix}:neg`),
        }
      : { ledger: ledger ?? new MemoryLedger() }),
    breakers,
    ...(client
      ? {
          credentials: clientCredentials({
            clients: { primary: client, fallback: client },
            transport,
            clock,
            marginMs: tokenMarginMs(s.vendor.tokenTtlSeconds),
          }),
        }
      : {}),
    crosswalk: crosswalkSnapshot(
      `sim-${c.hash}`,
      Object.fromEntries(
        Object.entries(s.client.crosswalk).map(([k, e]) => [
          k,
          e.ndc === undefined ? { gpi: e.gpi } : { gpi: e.gpi, ndc: e.ndc },
        ]),
      ),
    ),
    audit: c.audit,
    lanes: {
      pos: { default: s.client.budgets.pos.retail ?? DEFAULT_POS_BUDGET_MS, ...s.client.budgets.pos },
      batch: { default: s.client.budgets.batchMs },
    },
    clock,
    random: stream(s.seed, 'router'),
    logger: c.logger,
    onEvent: c.onEvent,
    telemetry: c.options.telemetry ?? false,
  });
  return gen;
}
