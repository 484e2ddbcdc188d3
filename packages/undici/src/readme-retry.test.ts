import assert from 'node:assert/strict';
import { retryPolicy } from '@rxgate/retry';
import { hits, url } from './test-support/readme-vendor.js'; // not in the README

const retryQueue: string[] = [];
const retry = retryPolicy({
  maxRetries: 4, // then onGiveUp: hand the claim to a retry queue
  backoff: { kind: 'full', baseMs: 10, capMs: 1000 }, // U(0, min(10 ms·2^n, 1 s))
  judge: (s) => ({ retry: s.ok && (s.value as Response).status === 429 }),
  onGiveUp: ({ context }) => retryQueue.push(context.key ?? ''),
});
const res = await retry.execute(({ signal }) => fetch(url, { signal: signal ?? null }), {
  key: 'clearinghouse',
});
assert.equal(res.status, 200);
assert.equal(hits(), 3);
