// The ledger's subscription (owners publish outcomes; joiners wait on them) across a reconnect of
// its subscriber connection. ioredis resubscribes a reconnected subscriber by itself and leaves
// that command's promise unhandled: when the resubscription fails (the connection drops again,
// the server refuses it), the process gets an unhandled rejection, which ends a Node process by
// default. Seen as a flaky `redis-stores.test.ts` on a loaded machine (the server restarted while
// ledgers of earlier tests were subscribed). The ledger resubscribes itself, and handles it.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { type RedisServer, redisAvailable, startRedis } from '@rxgate/testkit';
import { Redis } from 'ioredis';
import type { Outcome } from '../outcome.js';
import { RedisLedger } from './redis-stores.js';

const available = redisAvailable();
let server: RedisServer;

// Final: the owner publishes it whole (a dead letter would publish '': begin again).
const OUTCOME: Outcome = {
  kind: 'rejected',
  codes: ['76'],
  group: 'terminal',
  priorAuthRequired: false,
  local: false,
  claimKey: 'k-resubscribe',
  correlationId: 'c-1',
  path: ['primary'],
  attempts: 1,
  elapsedMs: 5,
};

/** Resolves after the subscriber's replies so far have come back, and their rejections were seen. */
async function settled(sub: Redis): Promise<void> {
  await sub.ping();
  await new Promise((r) => setImmediate(r));
}

describe('RedisLedger: its subscription across reconnects', {
  skip: !available && 'redis-server not installed',
}, () => {
  before(async () => {
    server = await startRedis();
  });
  after(async () => {
    await server?.close();
  });

  it('a resubscription the server refuses is no unhandled rejection, and the next reconnect subscribes again: a joiner hears the outcome', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    const admin = new Redis(server.url);
    const owner = new Redis(server.url);
    const joiner = new Redis(server.url);
    const sub = new Redis(server.url, { retryStrategy: () => 20 });
    sub.on('error', () => {});
    // Leases of a minute: only the published outcome can wake the joiner within the test.
    const a = new RedisLedger({ redis: owner, leaseMs: 60_000 });
    const b = new RedisLedger({ redis: joiner, leaseMs: 60_000, subscriber: sub });
    try {
      assert.equal((await a.begin('k-resubscribe')).kind, 'owner');
      const admission = await b.begin('k-resubscribe');
      assert.equal(admission.kind, 'in-flight');
      const wait = admission.kind === 'in-flight' ? admission.wait : undefined;
      // b's subscription is up once the server counts one pattern.
      while (Number(await admin.call('PUBSUB', 'NUMPAT')) !== 1) await new Promise((r) => setTimeout(r, 5));

      // The server now refuses PSUBSCRIBE, and drops the subscriber's connection.
      await admin.call('ACL', 'SETUSER', 'default', '-psubscribe');
      let ready = once(sub, 'ready');
      await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
      await ready;
      await settled(sub);
      assert.deepEqual(
        unhandled.map((e) => String(e)),
        [],
        'a refused resubscription is handled',
      );

      // Allowed again; the next reconnect subscribes again, and the owner's outcome reaches b.
      // (Refused, the connection is no subscriber now: it is dropped by its id.)
      await admin.call('ACL', 'SETUSER', 'default', '+psubscribe');
      const id = await sub.call('CLIENT', 'ID');
      ready = once(sub, 'ready');
      await admin.call('CLIENT', 'KILL', 'ID', String(id));
      await ready;
      await settled(sub);
      assert.equal(Number(await admin.call('PUBSUB', 'NUMPAT')), 1, 'subscribed again');
      await a.finish('k-resubscribe', OUTCOME);
      const heard = await wait;
      assert.equal(heard?.kind, 'rejected');
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await admin.call('ACL', 'SETUSER', 'default', '+psubscribe').catch(() => undefined);
      await a.close();
      await b.close();
      for (const r of [admin, owner, joiner, sub]) r.disconnect();
    }
  });
});
