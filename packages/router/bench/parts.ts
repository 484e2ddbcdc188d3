// npm run bench -w @rxgate/router (second part): what one claim's steps cost on their own.

import { createBreakers } from '@rxgate/breaker';
import { classify } from '@rxgate/classifier';
import { createLimiter } from '@rxgate/ratelimit';
import { fmt, nsPerAsync, nsPerSync, table } from '@rxgate/testkit';
import { idempotencyKeyer, parseClaim, toWire, wireBody } from '../dist/index.js';
import { ClaimSignal } from '../dist/signal.js';
import { rawClaim } from '../src/test-support/fixtures.js';

const raw = rawClaim();
const keyer = idempotencyKeyer('bench-secret-0123456789');
let kept: ClaimSignal | undefined;
const claim = parseClaim(raw);
const body = JSON.stringify({ '112-AN': 'P', '509-F9': '7.34' });
const limiter = createLimiter({ account: { ratePerSecond: 1e12, burst: 1e12 } });
const breakers = createBreakers({ defaults: { policy: { kind: 'consecutive', threshold: 5 } } });
const rows: Array<[string, number]> = [
  ['parseClaim (zod, 14 fields, Decimal, Phi)', nsPerSync(() => parseClaim(raw) !== undefined, 200_000, 3)],
  [
    'idempotency key (node:crypto createHmac over the identity)',
    nsPerSync(() => keyer(claim).length > 0, 200_000, 3),
  ],
  [
    'request body, toWire + JSON.stringify (before)',
    nsPerSync(() => JSON.stringify(toWire(claim)).length > 0, 200_000, 3),
  ],
  ['request body, wireBody (now)', nsPerSync(() => wireBody(claim).length > 0, 200_000, 3)],
  [
    'classify a paid 200',
    nsPerSync(
      () =>
        classify({ status: 200, headers: { 'x-ratelimit-remaining': '9' }, body }, { now: 0 }).kind ===
        'adjudicated',
      200_000,
      3,
    ),
  ],
  [
    'deadline signal, new AbortController (before)',
    nsPerSync(() => new AbortController().signal !== undefined, 200_000, 3),
  ],
  [
    'deadline signal, ClaimSignal (now)',
    nsPerSync(
      () => {
        // Kept, so that the allocation is not optimised away.
        kept = new ClaimSignal();
        return kept.aborted === false;
      },
      200_000,
      3,
    ),
  ],
  [
    'limiter acquire + release, account + key',
    await nsPerAsync(
      async () => (await limiter.acquire({ key: '610014/ADV', deadline: Date.now() + 800 })).release(),
      { iterations: 200_000, rounds: 3 },
    ),
  ],
  [
    'breaker permit + success',
    nsPerSync(
      () => {
        const p = breakers.tryAcquire('primary:retail');
        if (p.kind === 'permit') p.success();
        return true;
      },
      200_000,
      3,
    ),
  ],
];
console.log('\n## What the steps cost alone\n');
console.log(
  table(
    ['step', 'µs'],
    rows.map(([n, ns]) => [n, fmt(ns / 1000, 2)]),
  ),
);
