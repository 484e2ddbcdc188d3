// docs/recipes.md, story 3 (the clearinghouse submitter), with the recipe's options and a clock
// that fires every timer at once and records its delay (the recipe waits up to 15 s for real).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { it } from 'node:test';
import { classifierAdapters } from '@rxgate/classifier';
import { type Clock, wrap } from '@rxgate/core';
import { createLimiter, limiterPolicy } from '@rxgate/ratelimit';
import { retryPolicy } from '@rxgate/retry';

it('clearinghouse submitter: 429s retried 4 times at U(0, min(1 s·2^n, 30 s)) or Retry-After, then the retry queue', async () => {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    res.writeHead(429, { connection: 'close', 'retry-after': hits === 2 ? '20' : '0' });
    res.end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/submit`;
  const delays: number[] = [];
  let now = 0;
  const clock: Clock = {
    now: () => now,
    setTimer(ms, cb) {
      delays.push(ms);
      const h = setImmediate(() => {
        now += ms;
        cb();
      });
      return { cancel: () => clearImmediate(h) };
    },
  };

  const judge = classifierAdapters();
  const retryQueue: Array<{ key: string; retryAfterMs?: number }> = [];
  const submitter = wrap(
    limiterPolicy(createLimiter({ account: { ratePerSecond: 5, burst: 5 }, clock }), {
      quotaOf: judge.quotaOf,
    }),
    retryPolicy({
      maxRetries: 4,
      backoff: { kind: 'full', baseMs: 1000, capMs: 30_000 },
      judge: judge.retry,
      onGiveUp: ({ context, retryAfterMs }) =>
        retryQueue.push({ key: context.key ?? '', ...(retryAfterMs === undefined ? {} : { retryAfterMs }) }),
      clock,
      random: () => 0.5,
    }),
  );
  const res = await submitter.execute(
    ({ signal }) => fetch(url, { method: 'POST', signal: signal ?? null }),
    {
      key: 'clearinghouse',
      lane: 'batch',
    },
  );
  server.close();
  assert.equal(res.status, 429);
  assert.equal(hits, 5); // one try and 4 retries
  // 0.5·min(1 s·2^n, 30 s), and 20 s where the answer asked for it (longer than 1 s).
  assert.deepEqual(delays, [500, 20_000, 2000, 4000]);
  assert.deepEqual(retryQueue, [{ key: 'clearinghouse', retryAfterMs: 0 }]);
});
