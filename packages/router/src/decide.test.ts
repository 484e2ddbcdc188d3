// The router's decision table: one row per (step, claim state), no I/O. Verdicts come from
// the classifier on real answers; every verdict kind meets the claim states that change the
// answer: unsent or pinned, a failover node or none, retries left or spent, time left or not.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classify, type Verdict } from '@rxgate/classifier';
import { type Action, type ClaimState, decide, type Step } from './decide.js';

const v = (status: number, body: unknown = {}, headers: Record<string, string> = {}): Step => ({
  kind: 'verdict',
  verdict: classify({ status, body, headers }, { now: 0 }),
});
const err = (phase: 'sent' | 'not-sent', code: string): Step => ({
  kind: 'verdict',
  verdict: classify({ error: { code }, phase }),
});

const PAID = v(200, { '112-AN': 'P', '509-F9': '7.34' });
const DUP = v(200, { '112-AN': 'D' });
const REJ76 = v(200, { '112-AN': 'R', '511-FB': ['76'] });
const REP21 = v(200, { '112-AN': 'R', '511-FB': ['21'] });
const FIX07 = v(200, { '112-AN': 'R', '511-FB': ['07'] });
const HOST95 = v(200, { '112-AN': 'R', '511-FB': ['95'] });
const UNREAD = v(200, '{"112-AN": "P", ');
const NF_ROUTE = v(404, { error: 'unknown_route', field: '104-A4' });
const NF_PRODUCT = v(404, { error: 'unknown_product', field: '407-D7' });
const T429 = v(429, {}, { 'retry-after': '2' });
const T429_BARE = v(429);
const S503 = v(503);
const S503_MAINT = v(503, {}, { 'retry-after': '120' });
const G502 = v(502, '<html>Bad Gateway</html>');
const G504 = v(504, '<html>Gateway Timeout</html>');
const A401 = v(401);
const C400 = v(400, { error: 'invalid', field: '407-D7' });
const U418 = v(418);
const REFUSED = err('not-sent', 'ECONNREFUSED');
const RESET = err('sent', 'ECONNRESET');

const PIN = { kind: 'pinned', node: 'primary' } as const;
const base: ClaimState = {
  lane: 'pos',
  node: 'primary',
  commit: { kind: 'unsent' },
  failoverNode: 'secondary',
  transientOnNode: 1,
  maybeOnNode: 0,
  authReplayed: false,
  canRepair: true,
  remainingMs: 500,
  backoffMs: 40,
  transientRetries: 2,
  maybeRetries: 2,
};

type Row = [
  name: string,
  step: Step,
  state: Partial<ClaimState>,
  expected: Partial<Action> & { kind: Action['kind'] },
];
const rows: Row[] = [
  // adjudicated, duplicate, terminal reject: done, whatever the state.
  ['paid', PAID, {}, { kind: 'done' }],
  ['paid on a pinned claim', PAID, { commit: PIN, failoverNode: undefined }, { kind: 'done' }],
  ['paid with no time left', PAID, { remainingMs: 0 }, { kind: 'done' }],
  ['duplicate of paid', DUP, {}, { kind: 'done' }],
  ['reject 76', REJ76, {}, { kind: 'done' }],
  ['reject 76 on a pinned claim', REJ76, { commit: PIN }, { kind: 'done' }],
  // repairable: repair once with a crosswalk, else the reject stands.
  ['21 with a crosswalk', REP21, {}, { kind: 'repair' }],
  ['21 already repaired / no crosswalk', REP21, { canRepair: false }, { kind: 'done' }],
  // routing reject: done, and the negative cache learns.
  ['404 unknown route', NF_ROUTE, {}, { kind: 'done', remember: '04' }],
  ['404 unknown product', NF_PRODUCT, {}, { kind: 'done', remember: '70' }],
  // auth: refresh once, then give up (a pinned claim is reconciled, not dead-lettered).
  ['401 first', A401, {}, { kind: 'refresh-token' }],
  ['401 again', A401, { authReplayed: true }, { kind: 'dead-letter', reason: 'auth-failed' }],
  [
    '401 again, pinned',
    A401,
    { authReplayed: true, commit: PIN },
    { kind: 'reconcile', node: 'primary', reason: 'auth-failed' },
  ],
  // throttled: the limiter holds a Retry-After; a bare one backs off; past the deadline it ends.
  ['429 Retry-After 2 s, batch budget', T429, { remainingMs: 60_000 }, { kind: 'retry-same-node' }],
  ['429 Retry-After 2 s, pos budget', T429, {}, { kind: 'dead-letter', reason: 'throttled-past-deadline' }],
  [
    '429 Retry-After past the deadline, pinned',
    T429,
    { commit: PIN },
    { kind: 'reconcile', reason: 'throttled-past-deadline' },
  ],
  ['bare 429', T429_BARE, {}, { kind: 'wait', ms: 40, why: 'throttled' }],
  [
    'bare 429, no time for the backoff',
    T429_BARE,
    { remainingMs: 10 },
    { kind: 'dead-letter', reason: 'throttled-past-deadline' },
  ],
  // transient, nothing processed: retry, then fail over, then dead-letter.
  ['503 with retries left', S503, {}, { kind: 'wait', ms: 40, why: 'transient' }],
  [
    '503 retries spent, a failover node',
    S503,
    { transientOnNode: 3 },
    { kind: 'failover', node: 'secondary', reason: 'transient' },
  ],
  [
    '503 retries spent, no failover node',
    S503,
    { transientOnNode: 3, failoverNode: undefined },
    { kind: 'dead-letter', reason: 'transient-exhausted' },
  ],
  [
    '503 retries spent, pinned by an earlier send',
    S503,
    { transientOnNode: 3, failoverNode: undefined, commit: PIN },
    { kind: 'reconcile', reason: 'transient-exhausted' },
  ],
  [
    '503 with no time left, a failover node',
    S503,
    { remainingMs: 10 },
    { kind: 'failover', reason: 'transient' },
  ],
  [
    '503 maintenance (Retry-After 120 s), a failover node',
    S503_MAINT,
    {},
    { kind: 'failover', reason: 'maintenance' },
  ],
  [
    '503 maintenance, no failover node, no time for it',
    S503_MAINT,
    { failoverNode: undefined },
    { kind: 'dead-letter', reason: 'deferred-retry' },
  ],
  ['connect refused, retries left', REFUSED, {}, { kind: 'wait', why: 'transient' }],
  [
    'connect refused, retries spent',
    REFUSED,
    { transientOnNode: 3 },
    { kind: 'failover', reason: 'transient' },
  ],
  // maybe committed (gateway 5xx, reset after sending, host error, unreadable 200): same node,
  // same key; never failed over unless the nodes share idempotency (then the caller offers a node).
  [
    '502 from a gateway, retries left',
    G502,
    { maybeOnNode: 1, commit: PIN, failoverNode: undefined },
    { kind: 'wait', ms: 40, why: 'maybe-committed' },
  ],
  [
    '504 from a gateway, retries spent',
    G504,
    { maybeOnNode: 3, commit: PIN, failoverNode: undefined },
    { kind: 'reconcile', node: 'primary', reason: 'maybe-committed:http-504' },
  ],
  [
    '504, retries spent, shared idempotency',
    G504,
    { maybeOnNode: 3, commit: PIN, failoverNode: 'secondary' },
    { kind: 'failover', reason: 'maybe-committed' },
  ],
  [
    '504, no time left',
    G504,
    { maybeOnNode: 1, commit: PIN, failoverNode: undefined, remainingMs: 0 },
    { kind: 'reconcile', reason: 'maybe-committed:http-504' },
  ],
  [
    'reset after sending, retries left',
    RESET,
    { maybeOnNode: 1, commit: PIN, failoverNode: undefined },
    { kind: 'wait', why: 'maybe-committed' },
  ],
  [
    'reset after sending, retries spent',
    RESET,
    { maybeOnNode: 3, commit: PIN, failoverNode: undefined },
    { kind: 'reconcile', reason: 'answer-lost' },
  ],
  [
    'host error 95, retries spent',
    HOST95,
    { maybeOnNode: 3, commit: PIN, failoverNode: undefined },
    { kind: 'reconcile', reason: 'maybe-committed:host-error' },
  ],
  [
    'an unreadable 200',
    UNREAD,
    { commit: PIN, failoverNode: undefined },
    { kind: 'reconcile', node: 'primary' },
  ],
  // client errors: dead letters (reconciled when an earlier send may have committed).
  ['400 invalid', C400, {}, { kind: 'dead-letter', reason: 'client-error:http-400' }],
  ['200 with 07 (submitter fix): a reject the pharmacist fixes, with its codes', FIX07, {}, { kind: 'done' }],
  ['400 on a pinned claim', C400, { commit: PIN }, { kind: 'reconcile', reason: 'client-error:http-400' }],
  ['418', U418, {}, { kind: 'dead-letter' }],
  // refusals before any send.
  [
    'limiter predicts a missed deadline',
    { kind: 'limiter-deadline' },
    {},
    { kind: 'dead-letter', reason: 'limiter-deadline' },
  ],
  [
    'limiter predicts a missed deadline, pinned',
    { kind: 'limiter-deadline' },
    { commit: PIN },
    { kind: 'reconcile', reason: 'limiter-deadline' },
  ],
  ['limiter refused', { kind: 'limiter-refused' }, {}, { kind: 'dead-letter', reason: 'limiter-refused' }],
  [
    'breaker open, a failover node',
    { kind: 'breaker-rejected', retryAfterMs: 3000 },
    {},
    { kind: 'failover', reason: 'breaker-open' },
  ],
  [
    'breaker open, pinned: wait for the probe',
    { kind: 'breaker-rejected', retryAfterMs: 300 },
    { commit: PIN, failoverNode: undefined },
    { kind: 'wait', ms: 300, why: 'breaker' },
  ],
  [
    'breaker open past the deadline, pinned',
    { kind: 'breaker-rejected', retryAfterMs: 3000 },
    { commit: PIN, failoverNode: undefined },
    { kind: 'reconcile', reason: 'breaker-open' },
  ],
  [
    'breaker half-open, probes taken',
    { kind: 'breaker-rejected', retryAfterMs: 0 },
    { failoverNode: undefined },
    { kind: 'wait', ms: 40, why: 'breaker' },
  ],
  [
    'credentials down, retries left',
    { kind: 'credentials-unavailable' },
    {},
    { kind: 'wait', why: 'credentials' },
  ],
  [
    'credentials down, retries spent',
    { kind: 'credentials-unavailable' },
    { transientOnNode: 3 },
    { kind: 'failover', reason: 'credentials' },
  ],
  [
    'credentials down, retries spent, nowhere to go',
    { kind: 'credentials-unavailable' },
    { transientOnNode: 3, failoverNode: undefined },
    { kind: 'dead-letter', reason: 'credentials-unavailable' },
  ],
  ['deadline before a send', { kind: 'deadline' }, {}, { kind: 'dead-letter', reason: 'deadline' }],
  [
    'deadline before a send, pinned (cut after the vendor paid)',
    { kind: 'deadline' },
    { commit: PIN },
    { kind: 'reconcile', node: 'primary', reason: 'deadline' },
  ],
  ['aborted', { kind: 'aborted' }, {}, { kind: 'dead-letter', reason: 'aborted' }],
  ['taken over elsewhere', { kind: 'lost-ownership' }, { commit: PIN }, { kind: 'handed-over' }],
  [
    'the pin could not be written',
    { kind: 'ledger-unavailable' },
    {},
    { kind: 'dead-letter', reason: 'ledger-unavailable' },
  ],
];

describe('decide: the decision table', () => {
  for (const [name, step, state, expected] of rows)
    it(name, () => {
      const action = decide(step, { ...base, ...state });
      for (const [k, value] of Object.entries(expected))
        assert.deepEqual(
          (action as Record<string, unknown>)[k],
          value,
          `${name}: ${k} of ${JSON.stringify(action)}`,
        );
    });

  it('covers every verdict kind the classifier gives', () => {
    const kinds = new Set(
      rows.flatMap(([, s]) => (s.kind === 'verdict' ? [(s.verdict as Verdict).kind] : [])),
    );
    for (const k of [
      'adjudicated',
      'duplicate',
      'terminal-reject',
      'repairable',
      'throttled',
      'transient',
      'ambiguous',
      'auth-expired',
      'routing-reject',
      'client-error',
      'unknown',
    ])
      assert.ok(kinds.has(k as Verdict['kind']), k);
  });

  it('never sends a pinned claim anywhere but its pin (every row, pinned)', () => {
    for (const [, step] of rows) {
      const a = decide(step, {
        ...base,
        commit: PIN,
        failoverNode: undefined,
        maybeOnNode: 3,
        transientOnNode: 3,
      });
      assert.notEqual(a.kind, 'failover');
      assert.notEqual(
        a.kind,
        'dead-letter',
        `a pinned claim is reconciled, never dead-lettered: ${JSON.stringify(a)}`,
      );
    }
  });
});
