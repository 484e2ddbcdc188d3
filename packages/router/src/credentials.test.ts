// Tokens (issue #14 item 4): refreshed once per lifetime, in the background; the token call
// has its own timeout and its own breaker; a node whose token endpoint is down spends no
// limiter token. Each test names what the code before did.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Lease, LimiterAcquireOptions } from '@rxgate/ratelimit';
import { VirtualClock } from '@rxgate/testkit';
import { MemoryAuditLog } from './audit.js';
import { clientCredentials } from './credentials.js';
import { MemoryLedger } from './memory-ledger.js';
import { createRouter, type RouterLimiter } from './router.js';
import type { AbortSignalLike } from './signal.js';
import { rawClaim, SECRET } from './test-support/fixtures.js';
import { functionTransport, type WireResponse } from './transport.js';

const NODE = { name: 'primary', url: 'http://p.test' };
const CLIENTS = { primary: { clientId: 'pharmacy', clientSecret: 's3cret' } };
const never: AbortSignalLike = { aborted: false, addEventListener() {}, removeEventListener() {} };

/** A token endpoint on the virtual clock: answers after `delayMs` (honouring the call's signal). */
function tokenEndpoint(clock: VirtualClock, o: { ttlSeconds: number; delayMs?: number; down?: boolean }) {
  let issued = 0;
  const transport = functionTransport(
    (_node, _req, signal) =>
      new Promise<WireResponse>((resolve, reject) => {
        if (o.down === true) {
          reject(new Error('ECONNREFUSED'));
          return;
        }
        const timer = clock.setTimer(o.delayMs ?? 5, () =>
          resolve({
            status: 200,
            headers: {},
            body: JSON.stringify({ access_token: `tok-${++issued}`, expires_in: o.ttlSeconds }),
          }),
        );
        signal.addEventListener('abort', () => {
          timer.cancel();
          reject(new Error('aborted'));
        });
      }),
  );
  return { transport, issued: () => issued };
}

function deadlineSignal(clock: VirtualClock, ms: number): AbortSignalLike {
  const c = new AbortController();
  clock.setTimer(ms, () => c.abort());
  return c.signal;
}

describe('client credentials', () => {
  it('a token of 30 s (under the 60 s margin) is fetched once per lifetime, not once per claim', async () => {
    // Before: expiresAt - 60 s was always past, so 200 claims fetched 200 tokens.
    const clock = new VirtualClock();
    const vendor = tokenEndpoint(clock, { ttlSeconds: 30 });
    const creds = clientCredentials({ clients: CLIENTS, transport: vendor.transport, clock });
    for (let i = 0; i < 200; i++) {
      const token = creds.token(NODE, never);
      await clock.advance(500);
      await token;
    }
    // 100 s of claims: a refresh 3 s before each 30 s token expires (every ~27 s).
    assert.ok(vendor.issued() <= 5, `${vendor.issued()} tokens for 100 s`);
    assert.ok(vendor.issued() >= 4);
  });

  it('inside the refresh margin the token still in force is served at once; one refresh goes in the background', async () => {
    const clock = new VirtualClock();
    const vendor = tokenEndpoint(clock, { ttlSeconds: 300, delayMs: 2000 });
    const creds = clientCredentials({ clients: CLIENTS, transport: vendor.transport, clock });
    const first = creds.token(NODE, never);
    await clock.advance(2000);
    assert.equal(await first, 'tok-1');
    // min(60 s, a tenth of 300 s) = 30 s before expiry, the refresh is due; 25 s before:
    await clock.advance(273_000);
    let got: string | undefined;
    void creds.token(NODE, never).then((t) => {
      got = t;
    });
    await clock.advance(0);
    assert.equal(got, 'tok-1', 'served without waiting for the refresh');
    for (let i = 0; i < 10; i++) void creds.token(NODE, never);
    await clock.advance(2000);
    assert.equal(vendor.issued(), 2, 'one refresh, however many asked');
    assert.equal(await creds.token(NODE, never), 'tok-2');
  });

  it('the token call does not inherit the first waiting claim deadline', async () => {
    // Before: the fetch took the first claim's signal; its 100 ms deadline aborted the call
    // and failed the claim behind it, which had a minute left.
    const clock = new VirtualClock();
    const vendor = tokenEndpoint(clock, { ttlSeconds: 300, delayMs: 1000 });
    const creds = clientCredentials({ clients: CLIENTS, transport: vendor.transport, clock });
    const short = creds.token(NODE, deadlineSignal(clock, 100));
    const long = creds.token(NODE, deadlineSignal(clock, 60_000));
    const shortResult = short.then(
      () => 'token',
      () => 'refused',
    );
    await clock.advance(1000);
    assert.equal(await shortResult, 'refused', 'the first claim stops at its own deadline');
    assert.equal(await long, 'tok-1');
    assert.equal(vendor.issued(), 1);
  });

  it('the token call has its own timeout: a hung endpoint fails the waiters after timeoutMs, not their deadlines', async () => {
    const clock = new VirtualClock();
    const vendor = tokenEndpoint(clock, { ttlSeconds: 300, delayMs: 3_600_000 });
    const creds = clientCredentials({
      clients: CLIENTS,
      transport: vendor.transport,
      clock,
      timeoutMs: 2000,
    });
    const result = creds.token(NODE, deadlineSignal(clock, 3_600_000)).then(
      () => 'token',
      (e: unknown) => String(e),
    );
    await clock.advance(2000);
    assert.match(await result, /timed out|timeout/);
  });

  it('a token endpoint that is down is asked until its breaker opens, then not again until it lets a probe through', async () => {
    // Before: every token() asked the endpoint (a claim's three attempts, three calls).
    const clock = new VirtualClock();
    const vendor = tokenEndpoint(clock, { ttlSeconds: 300, down: true });
    const creds = clientCredentials({ clients: CLIENTS, transport: vendor.transport, clock });
    for (let i = 0; i < 20; i++) await creds.token(NODE, never).catch(() => undefined);
    assert.equal(creds.fetches, 3);
  });
});

describe('the router and credentials', () => {
  it('a node whose token endpoint is down spends no limiter token', async () => {
    // Before: the lease was taken first, so each of a claim's attempts spent a limiter token
    // on a node that could not be sent to.
    const clock = new VirtualClock();
    const vendor = tokenEndpoint(clock, { ttlSeconds: 300, down: true });
    let acquired = 0;
    const lease = { release() {} } as Lease;
    const limiter: RouterLimiter = {
      acquire: (_: LimiterAcquireOptions) => {
        acquired++;
        return Promise.resolve(lease);
      },
      tryAcquire: () => {
        acquired++;
        return Promise.resolve(lease);
      },
      observe: () => Promise.resolve(),
    };
    const router = createRouter({
      ledger: new MemoryLedger(),
      nodes: [NODE],
      idempotencySecret: SECRET,
      clock,
      limiter,
      transport: vendor.transport,
      credentials: clientCredentials({ clients: CLIENTS, transport: vendor.transport, clock }),
      audit: new MemoryAuditLog(),
    });
    const outcomes = Array.from({ length: 5 }, (_, i) => router.submit(rawClaim({ '402-D2': String(i) })));
    await clock.advance(5000);
    for (const o of await Promise.all(outcomes)) assert.equal(o.kind, 'dead-lettered');
    assert.equal(acquired, 0);
    await router.close();
  });
});
