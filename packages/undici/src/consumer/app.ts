// A consumer project's own code, compiled against the packed tarballs (moduleResolution nodenext).
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { breakerPolicy, CircuitBreaker, isBrokenCircuitError } from '@rxgate/breaker';
import { classifierAdapters } from '@rxgate/classifier';
import { type CallOutcome, VirtualClock, wrap } from '@rxgate/core';
import { createLimiter, limiterPolicy } from '@rxgate/ratelimit';
import { retryPolicy } from '@rxgate/retry';
import { breaker, classify, limit, retry } from '@rxgate/undici';
import { Agent, request } from 'undici';

const statuses = [503, 503, 503, 429, 200, 503, 200];
let hits = 0;
const server = createServer((_req, res) => {
  const status = statuses[hits++] ?? 200;
  res.writeHead(status, status === 429 ? { 'retry-after': '0' } : {});
  res.end(`answer ${hits}`);
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/claims`;
const check = (ok: boolean, what: string): void => {
  if (!ok) throw new Error(`consumer: ${what}`);
  process.stdout.write(`ok ${what}\n`);
};

// 1. The breaker alone over fetch: resolved 503s open it.
const failOn5xx = (r: unknown): CallOutcome => ((r as Response).status >= 500 ? 'failure' : 'success');
const circuit = new CircuitBreaker({
  policy: { kind: 'consecutive', threshold: 3 },
  classifyResult: failOn5xx,
});
for (let i = 0; i < 3; i++)
  await (await circuit.execute((signal) => fetch(url, { signal: signal ?? null }))).text();
check(circuit.state === 'open', 'breaker alone over fetch opens on three 503s');
const refused = await circuit.execute(() => fetch(url)).catch((e: unknown) => e);
check(isBrokenCircuitError(refused) && hits === 3, 'the open breaker refuses without sending');

// 2. wrap(limiter, retry, breaker) over fetch: the 429 is retried, the answer comes back.
const adapters = classifierAdapters();
const limiter = createLimiter({ account: { ratePerSecond: 100, burst: 5 } });
const policy = wrap(
  limiterPolicy(limiter, { quotaOf: adapters.quotaOf }),
  retryPolicy({ maxRetries: 4, backoff: { kind: 'full', baseMs: 1, capMs: 10 }, judge: adapters.retry }),
  breakerPolicy(new CircuitBreaker({ ...adapters.breaker })),
);
const res = await policy.execute(({ signal }) => fetch(url, signal ? { signal } : {}), { key: '610014/ADV' });
check(
  res.status === 200 && (await res.text()) === 'answer 5',
  'wrap(limiter, retry, breaker) retries the 429',
);

// 3. The undici interceptors: the 503 is retried through a composed agent.
const kinds: string[] = [];
const agent = new Agent().compose(
  breaker(breakerPolicy(new CircuitBreaker({ ...adapters.breaker }))),
  classify({ verdictOf: adapters.verdictOf, onVerdict: (v) => kinds.push(v.kind) }),
  retry(retryPolicy({ backoff: { kind: 'full', baseMs: 1, capMs: 10 }, judge: adapters.retry })),
  limit(limiterPolicy(limiter)),
);
const answer = await request(url, { dispatcher: agent });
check(
  answer.statusCode === 200 && (await answer.body.text()) === 'answer 7',
  'undici interceptors retry the 503',
);
check(kinds.join() === 'transient,unknown', `classify saw every attempt (${kinds.join()})`);

// The one virtual clock is exported for the consumer's own tests.
const clock = new VirtualClock();
let fired = false;
clock.setTimer(10, () => {
  fired = true;
});
await clock.run();
check(fired && clock.now() === 10, 'VirtualClock runs');

await agent.close();
limiter.close();
server.close();
