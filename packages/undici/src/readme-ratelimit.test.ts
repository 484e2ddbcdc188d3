import assert from 'node:assert/strict';
import { createLimiter } from '@rxgate/ratelimit';
import { url } from './test-support/readme-vendor.js'; // not in the README

const limiter = createLimiter({
  account: { ratePerSecond: 20, burst: 5, concurrency: 4 }, // our credentials' quota
  perKey: { default: { ratePerSecond: 10, burst: 5 } }, // each payer's (BIN/PCN)
});
const answers = await Promise.all(
  Array.from({ length: 8 }, () => limiter.run('610014/ADV', () => fetch(url), { lane: 'pos' })),
);
assert.deepEqual(new Set(answers.map((r) => r.status)), new Set([200]));
limiter.close();
