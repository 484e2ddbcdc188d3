// The decision table at its edges, and the whole action each time (what to wait for and why,
// where to go and the reason a dead letter or a reconciliation carries): retries counted with
// the answer at hand, a wait that fits the deadline exactly, a downtime of exactly one second,
// a Retry-After of exactly 60 s. From the README's table ("backoff and retry
// (`transientRetries`, 2)", "a node that names its downtime (Retry-After ≥ 1 s) is gone around
// at once", "either past the deadline: the claim ends"), not from decide.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classify, type Verdict } from '@rxgate/classifier';
import { type Action, type ClaimState, decide, isDowntime, type Step, tally } from './decide.js';

const answer = (status: number, body: unknown = {}, headers: Record<string, string> = {}): Verdict =>
  classify({ status, body, headers }, { now: 0 });
const step = (verdict: Verdict): Step => ({ kind: 'verdict', verdict });

// Answers as a vendor gives them.
const S503 = answer(503);
const S503_RA1 = answer(503, {}, { 'retry-after': '1' });
const S503_RA60 = answer(503, {}, { 'retry-after': '60' });
const S503_RA61 = answer(503, {}, { 'retry-after': '61' });
const S500_RA3 = answer(500, {}, { 'retry-after': '3' });
const G502 = answer(502, '<html>Bad Gateway</html>');
const T429 = answer(429, {}, { 'retry-after': '2' });
const T429_BARE = answer(429);
const UNREAD = answer(200, '{"112-AN": "P", ');
const OTHER_PAYER = answer(200, { '112-AN': 'R', '511-FB': ['41'] });
const REJ76 = answer(200, { '112-AN': 'R', '511-FB': ['76'] });
const PAID = answer(200, { '112-AN': 'P', '509-F9': '7.34' });
const DUP = answer(200, { '112-AN': 'D' });
const RESET = classify({ error: { code: 'ECONNRESET' }, phase: 'sent' });
const REFUSED = classify({ error: { code: 'ECONNREFUSED' }, phase: 'not-sent' });

// Verdicts no answer above gives, written out.
const TRANSIENT_IGNORED_RA120: Verdict = {
  kind: 'transient',
  breaker: 'ignore',
  reason: 'http-503',
  status: 503,
  retryAfterMs: 120_000,
  commit: 'not-processed',
};
const UNKNOWN_UNSENT: Verdict = {
  kind: 'unknown',
  breaker: 'ignore',
  reason: 'http-302',
  status: 302,
  commit: 'not-processed',
};
const UNKNOWN_MAYBE_NO_STATUS: Verdict = {
  kind: 'unknown',
  breaker: 'failure',
  reason: 'odd-error',
  commit: 'maybe',
};

const PIN = { kind: 'pinned', node: 'primary' } as const;
const base: ClaimState = {
  lane: 'pos',
  node: 'primary',
  commit: { kind: 'unsent' },
  failoverNode: 'secondary',
  transientOnNode: 1,
  maybeOnNode: 1,
  authReplayed: false,
  canRepair: true,
  remainingMs: 500,
  backoffMs: 40,
  transientRetries: 2,
  maybeRetries: 2,
};
const NOWHERE = { failoverNode: undefined };

type Row = [name: string, step: Step, state: Partial<ClaimState>, action: Action];
const rows: Row[] = [
  // Transient, nothing processed: `transientRetries` retries; the count includes this answer.
  [
    '503, the last retry left',
    step(S503),
    { transientOnNode: 2 },
    { kind: 'wait', ms: 40, why: 'transient' },
  ],
  [
    '503, one past the retries, a failover node',
    step(S503),
    { transientOnNode: 3 },
    { kind: 'failover', node: 'secondary', reason: 'transient' },
  ],
  [
    '503, a backoff that ends on the deadline',
    step(S503),
    { remainingMs: 40 },
    { kind: 'wait', ms: 40, why: 'transient' },
  ],
  [
    '503, a backoff a millisecond past the deadline, nowhere to go',
    step(S503),
    { remainingMs: 39, ...NOWHERE },
    { kind: 'dead-letter', reason: 'transient-exhausted' },
  ],
  [
    '503, a backoff past the deadline, pinned by an earlier send',
    step(S503),
    { remainingMs: 39, ...NOWHERE, commit: PIN },
    { kind: 'reconcile', node: 'primary', reason: 'transient-exhausted' },
  ],
  [
    'connection refused, retries left: its own backoff',
    step(REFUSED),
    { backoffMs: 75 },
    { kind: 'wait', ms: 75, why: 'transient' },
  ],
  // A node naming its downtime (Retry-After >= 1 s) is gone around at once.
  [
    '503 Retry-After 1 s, a failover node: gone around at once',
    step(S503_RA1),
    { transientOnNode: 1 },
    { kind: 'failover', node: 'secondary', reason: 'maintenance' },
  ],
  [
    '503 Retry-After 1 s, nowhere to go, time for it: wait the vendor’s second',
    step(S503_RA1),
    { ...NOWHERE, remainingMs: 1000 },
    { kind: 'wait', ms: 1000, why: 'transient' },
  ],
  [
    '503 Retry-After 1 s, nowhere to go, no time: the claim ends',
    step(S503_RA1),
    { ...NOWHERE, remainingMs: 999 },
    { kind: 'dead-letter', reason: 'transient-exhausted' },
  ],
  [
    'a transient the breaker ignores is no downtime, whatever its Retry-After',
    step(TRANSIENT_IGNORED_RA120),
    {},
    { kind: 'failover', node: 'secondary', reason: 'transient' },
  ],
  [
    '503 Retry-After 60 s, retries spent, nowhere to go: exhausted',
    step(S503_RA60),
    { ...NOWHERE, transientOnNode: 3 },
    { kind: 'dead-letter', reason: 'transient-exhausted' },
  ],
  [
    '503 Retry-After 61 s, retries spent, nowhere to go: deferred',
    step(S503_RA61),
    { ...NOWHERE, transientOnNode: 3 },
    { kind: 'dead-letter', reason: 'deferred-retry' },
  ],
  [
    '503 Retry-After 61 s, pinned: reconciled as deferred',
    step(S503_RA61),
    { ...NOWHERE, transientOnNode: 3, commit: PIN },
    { kind: 'reconcile', node: 'primary', reason: 'deferred-retry' },
  ],
  // Maybe committed: `maybeRetries` resends on the same node, the count includes this answer.
  [
    '502, the last resend left',
    step(G502),
    { maybeOnNode: 2, commit: PIN, ...NOWHERE },
    { kind: 'wait', ms: 40, why: 'maybe-committed' },
  ],
  [
    '502, one past the resends',
    step(G502),
    { maybeOnNode: 3, commit: PIN, ...NOWHERE },
    { kind: 'reconcile', node: 'primary', reason: 'maybe-committed:http-502' },
  ],
  [
    '502, a backoff that ends on the deadline',
    step(G502),
    { remainingMs: 40, commit: PIN, ...NOWHERE },
    { kind: 'wait', ms: 40, why: 'maybe-committed' },
  ],
  [
    '500 Retry-After 3 s: the vendor’s wait, not the backoff',
    step(S500_RA3),
    { remainingMs: 3000, commit: PIN, ...NOWHERE },
    { kind: 'wait', ms: 3000, why: 'maybe-committed' },
  ],
  [
    '500 Retry-After 3 s past the deadline, nodes sharing idempotency',
    step(S500_RA3),
    { remainingMs: 2999, commit: PIN, failoverNode: 'secondary' },
    { kind: 'failover', node: 'secondary', reason: 'maybe-committed' },
  ],
  [
    'reset after sending, resends spent, nodes sharing idempotency',
    step(RESET),
    { maybeOnNode: 3, commit: PIN },
    { kind: 'failover', node: 'secondary', reason: 'maybe-committed' },
  ],
  [
    'an unreadable 200 with resends and a failover node: never resent',
    step(UNREAD),
    { commit: PIN, maybeOnNode: 1, remainingMs: 60_000 },
    { kind: 'reconcile', node: 'primary', reason: 'malformed-body' },
  ],
  [
    'an unknown maybe without a status is resent like any maybe',
    step(UNKNOWN_MAYBE_NO_STATUS),
    { commit: PIN, ...NOWHERE },
    { kind: 'wait', ms: 40, why: 'maybe-committed' },
  ],
  [
    'an unknown maybe, resends spent',
    step(UNKNOWN_MAYBE_NO_STATUS),
    { commit: PIN, ...NOWHERE, maybeOnNode: 3 },
    { kind: 'reconcile', node: 'primary', reason: 'maybe-committed:odd-error' },
  ],
  [
    'an unknown answer that processed nothing ends the claim, retries or not',
    step(UNKNOWN_UNSENT),
    { transientOnNode: 0, remainingMs: 60_000 },
    { kind: 'dead-letter', reason: 'unknown:http-302' },
  ],
  // Throttled: a Retry-After paused the limiter; a bare 429 backs off; past the deadline, ends.
  [
    '429 Retry-After 2 s, exactly 2 s left',
    step(T429),
    { remainingMs: 2000 },
    { kind: 'retry-same-node', why: 'throttled' },
  ],
  [
    '429 Retry-After 2 s, a millisecond short',
    step(T429),
    { remainingMs: 1999 },
    { kind: 'dead-letter', reason: 'throttled-past-deadline' },
  ],
  [
    'bare 429, a backoff ending on the deadline',
    step(T429_BARE),
    { remainingMs: 40 },
    { kind: 'wait', ms: 40, why: 'throttled' },
  ],
  // The credentials endpoint down: backoff and retry, then fail over, then the claim ends.
  [
    'credentials down, the last retry left',
    { kind: 'credentials-unavailable' },
    { transientOnNode: 2 },
    { kind: 'wait', ms: 40, why: 'credentials' },
  ],
  [
    'credentials down, a backoff ending on the deadline',
    { kind: 'credentials-unavailable' },
    { remainingMs: 40 },
    { kind: 'wait', ms: 40, why: 'credentials' },
  ],
  [
    'credentials down, retries left but no time: fail over',
    { kind: 'credentials-unavailable' },
    { remainingMs: 39 },
    { kind: 'failover', node: 'secondary', reason: 'credentials' },
  ],
  [
    'credentials down, retries spent, pinned',
    { kind: 'credentials-unavailable' },
    { transientOnNode: 3, ...NOWHERE, commit: PIN },
    { kind: 'reconcile', node: 'primary', reason: 'credentials-unavailable' },
  ],
  // The breaker.
  [
    'breaker open, the probe exactly at the deadline',
    { kind: 'breaker-rejected', retryAfterMs: 500 },
    NOWHERE,
    { kind: 'wait', ms: 500, why: 'breaker' },
  ],
  [
    'breaker open, the probe past the deadline, unsent',
    { kind: 'breaker-rejected', retryAfterMs: 501 },
    NOWHERE,
    { kind: 'dead-letter', reason: 'breaker-open' },
  ],
  [
    'breaker half-open with its probes taken, backoff past the deadline',
    { kind: 'breaker-rejected', retryAfterMs: 0 },
    { ...NOWHERE, remainingMs: 39 },
    { kind: 'dead-letter', reason: 'breaker-open' },
  ],
  [
    'limiter refused, pinned',
    { kind: 'limiter-refused' },
    { commit: PIN },
    { kind: 'reconcile', node: 'primary', reason: 'limiter-refused' },
  ],
  [
    'aborted, pinned',
    { kind: 'aborted' },
    { commit: PIN },
    { kind: 'reconcile', node: 'primary', reason: 'aborted' },
  ],
  [
    'the pin could not be written, an earlier pin stands',
    { kind: 'ledger-unavailable' },
    { commit: PIN },
    { kind: 'reconcile', node: 'primary', reason: 'ledger-unavailable' },
  ],
  [
    'auth fails twice, unsent',
    step(answer(401)),
    { authReplayed: true },
    { kind: 'dead-letter', reason: 'auth-failed' },
  ],
];

describe('decide at its edges: the whole action', () => {
  for (const [name, s, state, expected] of rows)
    it(name, () => assert.deepEqual(decide(s, { ...base, ...state }), expected));
});

describe('decide: final answers are final', () => {
  const finals: [string, Verdict][] = [
    ['paid', PAID],
    ['duplicate', DUP],
    ['reject 76', REJ76],
    ['reject 41 (bill another payer): a repair only products have', OTHER_PAYER],
  ];
  for (const [name, verdict] of finals)
    it(`${name}: done with the same verdict, whatever retries, crosswalk, node or time are left`, () => {
      for (const state of [
        {},
        { commit: PIN },
        { remainingMs: 0, ...NOWHERE },
        { canRepair: true, transientOnNode: 0 },
      ]) {
        const action = decide(step(verdict), { ...base, ...state });
        assert.deepEqual(action, { kind: 'done', verdict });
        assert.equal((action as { verdict: Verdict }).verdict, verdict);
      }
    });
});

describe('isDowntime: a failure that names a downtime of a second or more', () => {
  const transient = (over: Partial<Verdict>): Verdict =>
    ({
      kind: 'transient',
      breaker: 'failure',
      reason: 'http-503',
      status: 503,
      commit: 'not-processed',
      ...over,
    }) as Verdict;
  const cases: [string, Verdict, boolean][] = [
    ['503 Retry-After 1 s', S503_RA1, true],
    ['503 Retry-After 120 s', answer(503, {}, { 'retry-after': '120' }), true],
    ['a failure 1 ms short of a second', transient({ retryAfterMs: 999 }), false],
    ['a failure of exactly a second', transient({ retryAfterMs: 1000 }), true],
    ['503 with no Retry-After', S503, false],
    ['a transient the breaker ignores, Retry-After 120 s', TRANSIENT_IGNORED_RA120, false],
    [
      'a transient counted a success, Retry-After 120 s',
      transient({ breaker: 'success', retryAfterMs: 120_000 }),
      false,
    ],
    ['a 500 with Retry-After 3 s names its downtime too', S500_RA3, true],
    ['429 Retry-After 2 s (a throttle, not downtime)', T429, false],
    ['unknown with a Retry-After', { ...UNKNOWN_MAYBE_NO_STATUS, retryAfterMs: 5000 }, false],
  ];
  for (const [name, verdict, expected] of cases) it(name, () => assert.equal(isDowntime(verdict), expected));
});

describe('tally: what a node’s counters count', () => {
  const start = { transientOnNode: 3, maybeOnNode: 5 };
  const cases: [string, Step, { transientOnNode: number; maybeOnNode: number }][] = [
    ['503 (nothing processed)', step(S503), { transientOnNode: 4, maybeOnNode: 5 }],
    ['connection refused', step(REFUSED), { transientOnNode: 4, maybeOnNode: 5 }],
    ['credentials down', { kind: 'credentials-unavailable' }, { transientOnNode: 4, maybeOnNode: 5 }],
    ['502 from a gateway (maybe)', step(G502), { transientOnNode: 3, maybeOnNode: 6 }],
    ['reset after sending (ambiguous)', step(RESET), { transientOnNode: 3, maybeOnNode: 6 }],
    ['an unreadable 200 (unknown, maybe)', step(UNREAD), { transientOnNode: 3, maybeOnNode: 6 }],
    [
      'an unknown answer that processed nothing',
      step(UNKNOWN_UNSENT),
      { transientOnNode: 4, maybeOnNode: 5 },
    ],
    ['paid', step(PAID), start],
    ['reject 76', step(REJ76), start],
    ['429 (a throttle is no failed try)', step(T429), start],
    ['401', step(answer(401)), start],
    ['breaker rejected', { kind: 'breaker-rejected', retryAfterMs: 10 }, start],
    ['limiter refused', { kind: 'limiter-refused' }, start],
    ['deadline', { kind: 'deadline' }, start],
  ];
  for (const [name, s, expected] of cases)
    it(name, () => {
      const before = { ...start };
      assert.deepEqual(tally(before, s), expected);
      assert.deepEqual(before, start, 'the counts it was given are not changed');
    });
});
