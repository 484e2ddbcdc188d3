// npm run bench -w @rxgate/router (second part): what one claim's steps cost on their own.
import { createBreakers } from '@rxgate/breaker';
import { classify } from '@rxgate/classifier';
import { createLimiter } from '@rxgate/ratelimit';
import { fmt, nsPerAsync, nsPerSync, table } from '@rxgate/testkit';
import { idempotencyKey, parseClaim, toWire } from '../dist/index.js';
import { rawClaim } from '../src/test-support/fixtures.js';

const raw = rawClaim();
const claim = parseClaim(raw);
const body = JSON.stringify({ '112-AN': 'P', '509-F9': '7.34' });
const limiter = createLimiter({ account: { ratePerSecond: 1e12, burst: 1e12 } });
const breakers = createBreakers({ defaults: { policy: { kind: 'consecutive', threshold: 5 } } });
const rows: Array<[string, number]> = [
  ['parseClaim (zod, 14 fields, Decimal, Phi)', nsPerSync(() => parseClaim(raw) !== undefined, 200_000, 3)],
  [
    'idempotency key (HMAC-SHA256)',
    nsPerSync(() => idempotencyKey(claim, 'bench-secret-0123456789').length > 0, 200_000, 3),
  ],
  [
    'request body (toWire + JSON.stringify)',
    nsPerSync(() => JSON.stringify(toWire(claim)).length > 0, 200_000, 3),
  ],
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
    'new AbortController (the deadline signal)',
    nsPerSync(() => new AbortController().signal !== undefined, 200_000, 3),
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
