// A router as a new user would set one up from the README, wired to capture everything it logs,
// emits and audits (for the plain-substring PHI scan).
import assert from 'node:assert/strict';
import { createBreakers } from '@rxgate/breaker';
import { createLimiter } from '@rxgate/ratelimit';
import type { VirtualClock } from '@rxgate/testkit';
import {
  type AuditLog,
  createRouter,
  MemoryAuditLog,
  MemoryDeadLetterQueue,
  MemoryLedger,
  type Outcome,
  type Router,
  type RouterOptions,
  type Transport,
  undiciTransport,
} from '../index.js';
import { Capture, type VendorNode } from './independent-vendor.fixture.js';

export const SECRET = 'hostile-12-secret-0123456789abcdef0123456789';

export interface Harness {
  readonly router: Router;
  readonly capture: Capture;
  readonly audit: AuditLog;
  readonly deadLetters: MemoryDeadLetterQueue;
}

export function makeRouter(
  nodes: readonly VendorNode[],
  extra: Partial<RouterOptions> & { readTimeoutMs?: number } = {},
): Harness {
  const capture = new Capture();
  const audit = extra.audit ?? new MemoryAuditLog();
  const deadLetters = new MemoryDeadLetterQueue();
  const { readTimeoutMs, ...rest } = extra;
  // A test that gives the router a clock (a VirtualClock) gives it to the limiter and breakers too.
  const clock = extra.clock;
  const router = createRouter({
    nodes: nodes.map((n) => ({ name: n.name, url: n.url })),
    sharedIdempotency: false,
    limiter: createLimiter({
      account: { ratePerSecond: 1000, burst: 1000, concurrency: 64 },
      ...(clock ? { clock } : {}),
    }),
    transport: undiciTransport({ connectTimeoutMs: 500, readTimeoutMs: readTimeoutMs ?? 300 }),
    ledger: new MemoryLedger(),
    audit,
    deadLetters,
    idempotencySecret: SECRET,
    retry: { baseMs: 5, capMs: { pos: 40, batch: 80 } },
    // The README's defaults, with a short open period so a test run stays short.
    breakers: createBreakers({
      ...(clock ? { clock } : {}),
      defaults: {
        policy: { kind: 'time-window', windowMs: 30_000, minimumCalls: 10, failureRate: 0.5 },
        openDuration: { initialMs: 150, maxMs: 600 },
        maxProbes: 2,
        successesToClose: 3,
      },
    }),
    lanes: { pos: { default: 800, retail: 800, specialty: 1200 }, batch: { default: 6000 } },
    logger: capture.logger,
    onEvent: capture.onEvent,
    ...rest,
  });
  return { router, capture, audit, deadLetters };
}

export const KINDS = new Set([
  'paid',
  'approved',
  'captured',
  'rejected',
  'duplicate',
  'dead-lettered',
  'needs-reconciliation',
  'invalid',
  'in-flight-elsewhere',
]);

/** Resolves to the promise's value, or rejects naming `what` after `ms` (a bound, not a sync). */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let t: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    t = setTimeout(() => reject(new Error(`${what}: not settled within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(t));
}

/** What became of `p` so far: its value and the virtual instant it settled at, or its error. */
function tracked<T>(
  p: Promise<T>,
  clock: VirtualClock,
): { settled?: { value: T; at: number }; failed?: { error: unknown } } {
  const s: { settled?: { value: T; at: number }; failed?: { error: unknown } } = {};
  p.then(
    (value) => {
      s.settled = { value, at: clock.now() };
    },
    (error: unknown) => {
      s.failed = { error };
    },
  );
  return s;
}

/**
 * Drives `clock` up to `deadline` (never past it), with real event-loop turns between steps for
 * the sockets, until `p` settles; returns its value and the virtual time it settled at. A promise
 * that would need the clock past `deadline` never settles here: after `realBoundMs` of real time
 * (a bound for a hang, not a measurement) it rejects naming `what`.
 */
export async function settleBy<T>(
  clock: VirtualClock,
  p: Promise<T>,
  deadline: number,
  what: string,
  realBoundMs = 10_000,
): Promise<{ value: T; at: number }> {
  const s = tracked(p, clock);
  const giveUp = Date.now() + realBoundMs;
  for (;;) {
    await clock.advanceTo(deadline);
    await new Promise((r) => setTimeout(r, 1));
    if (s.failed) throw s.failed.error;
    if (s.settled) return s.settled;
    if (Date.now() > giveUp)
      throw new Error(`${what}: not settled with the router clock driven to its deadline`);
  }
}

/**
 * A transport that counts its sends in flight (sent, not yet answered or failed), and those of
 * them whose signal aborted (their failure is still on its way through the socket).
 */
export function countingTransport(
  inner: Transport,
): Transport & { readonly inFlight: number; readonly aborting: number } {
  let inFlight = 0;
  let aborting = 0;
  return {
    get inFlight() {
      return inFlight;
    },
    get aborting() {
      return aborting;
    },
    async send(node, request, signal) {
      inFlight++;
      let aborted = false;
      const onAbort = () => {
        aborted = true;
        aborting++;
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener?.('abort', onAbort, { once: true });
      try {
        return await inner.send(node, request, signal);
      } finally {
        inFlight--;
        if (aborted) aborting--;
        signal.removeEventListener?.('abort', onAbort);
      }
    },
    close: () => inner.close(),
  };
}

/**
 * Runs `clock` for `p`: whenever `quiet()` says no real I/O is under way that could still
 * answer (every send in flight is one a vendor holds, none is being aborted), the clock moves
 * to the instant its next timer is due and fires what is due then, and no further; otherwise
 * it waits a real millisecond for the sockets. So whatever a timer sets going over a socket
 * (an abort, a retry) ends before the clock moves on, and the virtual time says exactly when
 * each submission settled, however loaded the machine; what the scheduling decides is only
 * which of the contract's branches a claim takes. `realBoundMs` bounds a hang, it measures
 * nothing.
 */
export async function drive<T>(
  clock: VirtualClock,
  p: Promise<T>,
  quiet: () => boolean,
  what: string,
  realBoundMs = 30_000,
): Promise<T> {
  const s = tracked(p, clock);
  const giveUp = Date.now() + realBoundMs;
  for (;;) {
    await new Promise((r) => setTimeout(r, 1));
    if (s.failed) throw s.failed.error;
    if (s.settled) return s.settled.value;
    if (Date.now() > giveUp) throw new Error(`${what}: not settled within ${realBoundMs} ms of real time`);
    const next = clock.nextDue();
    if (next !== undefined && quiet()) await clock.advanceTo(next);
  }
}

export function isPaidKind(o: Outcome): boolean {
  return o.kind === 'paid' || o.kind === 'approved' || o.kind === 'captured' || o.kind === 'duplicate';
}

/** Once node X committed a claim's content, no other node ever receives that content. */
export function assertStaysWhereCommitted(
  book: { commits: Map<string, Map<string, number>> },
  nodes: readonly { name: string; seen: readonly { content: string; seq: number }[] }[],
): void {
  for (const [content, byNode] of book.commits) {
    const [first] = [...byNode].sort((a, b) => a[1] - b[1]);
    if (!first) continue;
    const [x, at] = first;
    for (const n of nodes) {
      if (n.name === x) continue;
      const later = n.seen.filter((r) => r.content === content && r.seq > at);
      assert.equal(
        later.length,
        0,
        `${content} committed on ${x} (request ${at}) was later sent to ${n.name}`,
      );
    }
  }
}

/**
 * What an audit trail holds, as text to search: a `MemoryAuditLog`'s records (behind a private
 * field and a getter, so never `Object.keys`/`String` of the log itself), the text of a JSONL
 * file, or `null` for a log that could write nothing. Anything else throws: a scan that cannot
 * read the trail must not pass as a scan that found nothing.
 */
export function auditText(audit: unknown): string {
  if (audit === null) return '';
  if (typeof audit === 'string') return audit;
  if (audit instanceof MemoryAuditLog) return JSON.stringify(audit.records);
  throw new Error('assertNoPhi: cannot read this audit log; pass a MemoryAuditLog, the JSONL text or null');
}

export function assertNoPhi(
  capture: { add(v: unknown): void; findPhi(v: Iterable<string>): string[] },
  outcomes: readonly Outcome[],
  audit: MemoryAuditLog | AuditLog | string | null,
  phi: readonly string[],
): void {
  for (const o of outcomes) capture.add(o);
  capture.add(auditText(audit));
  const hits = capture.findPhi(phi);
  assert.deepEqual(hits, [], `PHI found: ${hits.slice(0, 3).join(' | ')}`);
}
