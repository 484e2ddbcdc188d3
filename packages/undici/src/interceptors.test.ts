import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { breakerPolicy, CircuitBreaker, isBrokenCircuitError } from '@rxgate/breaker';
import { classifierAdapters, type Verdict } from '@rxgate/classifier';
import { wrap } from '@rxgate/core';
import { createLimiter, limiterPolicy } from '@rxgate/ratelimit';
import { retryPolicy } from '@rxgate/retry';
import { Agent, request, fetch as undiciFetch } from 'undici';
import { breaker, classify, limit, retry } from './index.js';

// A loopback vendor answering from a script, per path: each request takes the next status.
let server: Server;
let origin: string;
const scripts = new Map<string, Array<{ status: number; headers?: Record<string, string> }>>();
const hits = new Map<string, number>();
before(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const next = scripts.get(path)?.shift() ?? { status: 200 };
    res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
    res.end(JSON.stringify({ path, status: next.status, n: hits.get(path) }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

const adapters = classifierAdapters();

describe('undici interceptors over a loopback server', () => {
  it('retry: a 429 with Retry-After then a 503 then 200 reaches the caller as the 200, body and all', async () => {
    scripts.set('/retry', [{ status: 429, headers: { 'retry-after': '0' } }, { status: 503 }]);
    const waits: number[] = [];
    const agent = new Agent().compose(
      retry(
        retryPolicy({
          maxRetries: 4,
          backoff: { kind: 'full', baseMs: 1, capMs: 5 },
          judge: adapters.retry,
          onEvent: (e) => e.type === 'retry' && waits.push(e.delayMs),
        }),
      ),
    );
    const res = await request(`${origin}/retry`, { dispatcher: agent });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(await res.body.json(), { path: '/retry', status: 200, n: 3 });
    assert.equal(waits.length, 2);
    await agent.close();
  });

  it('retry: a 500 (maybe committed) is not retried by the classifier’s judge', async () => {
    scripts.set('/maybe', [{ status: 500 }]);
    const agent = new Agent().compose(
      retry(retryPolicy({ backoff: { kind: 'full', baseMs: 1, capMs: 2 }, judge: adapters.retry })),
    );
    const res = await request(`${origin}/maybe`, { dispatcher: agent });
    assert.equal(res.statusCode, 500);
    await res.body.dump();
    assert.equal(hits.get('/maybe'), 1);
    await agent.close();
  });

  it('breaker: 503s open it (resolved answers count through classifyResult) and the next request is refused unsent', async () => {
    scripts.set('/down', [{ status: 503 }, { status: 503 }, { status: 503 }]);
    const circuit = new CircuitBreaker({
      policy: { kind: 'consecutive', threshold: 3 },
      openDuration: 60_000,
      ...adapters.breaker,
    });
    const agent = new Agent().compose(breaker(breakerPolicy(circuit)));
    for (let i = 0; i < 3; i++) {
      const res = await request(`${origin}/down`, { dispatcher: agent });
      assert.equal(res.statusCode, 503);
      await res.body.dump();
    }
    assert.equal(circuit.state, 'open');
    await assert.rejects(request(`${origin}/down`, { dispatcher: agent }), (e: unknown) =>
      isBrokenCircuitError(e),
    );
    assert.equal(hits.get('/down'), 3);
    await agent.close();
  });

  it('limit + breaker + retry + classify composed: paced, retried, classified; undici composes the last outermost', async () => {
    scripts.set('/all', [{ status: 429, headers: { 'retry-after': '0', 'x-ratelimit-remaining': '0' } }]);
    const limiter = createLimiter({ account: { ratePerSecond: 1000, burst: 10, concurrency: 2 } });
    const circuit = new CircuitBreaker({ ...adapters.breaker });
    const verdicts: Array<Verdict['kind']> = [];
    const agent = new Agent().compose(
      breaker(breakerPolicy(circuit)),
      classify({ verdictOf: adapters.verdictOf, onVerdict: (v) => verdicts.push(v.kind) }),
      retry(retryPolicy({ backoff: { kind: 'full', baseMs: 1, capMs: 2 }, judge: adapters.retry })),
      limit(limiterPolicy(limiter, { quotaOf: adapters.quotaOf })),
    );
    const bodies = await Promise.all(
      [1, 2, 3].map(async () => {
        const res = await request(`${origin}/all`, { dispatcher: agent });
        return { status: res.statusCode, body: (await res.body.json()) as { n: number } };
      }),
    );
    assert.deepEqual(
      bodies.map((b) => b.status),
      [200, 200, 200],
    );
    assert.equal(hits.get('/all'), 4);
    assert.deepEqual(verdicts.sort(), ['throttled', 'unknown', 'unknown', 'unknown']);
    assert.equal(circuit.state, 'closed');
    await agent.close();
  });

  it('one wrap() policy in one interceptor does the same', async () => {
    scripts.set('/wrap', [{ status: 503 }]);
    const limiter = createLimiter({ account: { ratePerSecond: 1000, burst: 10 } });
    const policy = wrap(
      limiterPolicy(limiter),
      retryPolicy({ backoff: { kind: 'full', baseMs: 1, capMs: 2 }, judge: adapters.retry }),
      breakerPolicy(new CircuitBreaker({ ...adapters.breaker })),
    );
    const agent = new Agent().compose(retry(policy));
    const res = await request(`${origin}/wrap`, { dispatcher: agent });
    assert.equal(res.statusCode, 200);
    assert.equal(((await res.body.json()) as { n: number }).n, 2);
    await agent.close();
  });

  it('a retried answer with a large body is drained, not handed on, and the final body arrives whole', async () => {
    const big = createServer((_req, res) => {
      const n = (hits.get('/big') ?? 0) + 1;
      hits.set('/big', n);
      res.writeHead(n === 1 ? 503 : 200);
      res.end(Buffer.alloc(n === 1 ? 4 << 20 : 3 << 20, n === 1 ? 1 : 2));
    });
    big.listen(0, '127.0.0.1');
    await once(big, 'listening');
    const bigOrigin = `http://127.0.0.1:${(big.address() as AddressInfo).port}`;
    const agent = new Agent().compose(
      retry(retryPolicy({ backoff: { kind: 'full', baseMs: 1, capMs: 2 }, judge: adapters.retry })),
    );
    const res = await request(`${bigOrigin}/big`, { dispatcher: agent });
    const body = Buffer.from(await res.body.arrayBuffer());
    assert.equal(res.statusCode, 200);
    assert.equal(body.length, 3 << 20);
    assert.ok(body.every((b) => b === 2));
    await agent.close();
    big.close();
  });

  it('undici.fetch through the composed agent is retried too (its handler is the legacy kind)', async () => {
    scripts.set('/fetch', [{ status: 503 }]);
    const agent = new Agent().compose(
      retry(retryPolicy({ backoff: { kind: 'full', baseMs: 1, capMs: 2 }, judge: adapters.retry })),
    );
    const res = await undiciFetch(`${origin}/fetch`, { dispatcher: agent });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { path: '/fetch', status: 200, n: 2 });
    await agent.close();
  });

  it('an abort while a retry waits ends the call with the abort and sends nothing more', async () => {
    scripts.set('/abort', [{ status: 503 }, { status: 503 }]);
    const agent = new Agent().compose(
      retry(
        retryPolicy({
          backoff: { kind: 'full', baseMs: 60_000, capMs: 60_000 },
          random: () => 0.5,
          judge: adapters.retry,
        }),
      ),
    );
    const controller = new AbortController();
    const answered = once(server, 'request');
    const pending = request(`${origin}/abort`, { dispatcher: agent, signal: controller.signal });
    await answered;
    controller.abort();
    await assert.rejects(pending, { name: 'AbortError' });
    assert.equal(hits.get('/abort'), 1);
    await agent.close();
  });
});
