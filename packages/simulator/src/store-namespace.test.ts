// --store runs are namespaced per run: a run after another in the same Redis sends its claims
// (the earlier run's ledger does not answer them as paid) and warns that it found other keys.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RedisServer, redisAvailable, startRedis } from '@rxgate/testkit';
import { Redis } from 'ioredis';
import { runScenario } from './runner.js';
import { loadScenario, parseScenario } from './scenario.js';

const available = redisAvailable();
let server: RedisServer;

describe('--store namespaces', { skip: !available && 'redis-server not installed' }, () => {
  before(async () => {
    server = await startRedis();
  });
  after(async () => {
    await server?.close();
  });

  it('a second run in the same Redis sends every claim again and warns of the first run’s keys', async () => {
    const base = await loadScenario('steady');
    // A fixed number of claims, as fast as the quota admits: the two runs make the same claims.
    const s = parseScenario({
      ...base,
      traffic: { ...base.traffic, claims: 12, durationMs: undefined, ratePerSecond: 6 },
    });
    const first = await runScenario(s, { mode: 'loopback', store: server.url });
    const second = await runScenario(s, { mode: 'loopback', store: server.url });
    assert.deepEqual([first.claims, second.claims], [12, 12]);
    // Every claim of the second run reached the vendor (its own vendor model: a fresh ledger).
    const sent = Object.values(second.statuses).reduce((a, b) => a + b, 0);
    assert.ok(sent >= second.claims, `${sent} requests for ${second.claims} claims`);
    assert.ok((second.outcomes.paid ?? 0) > 0);
    assert.deepEqual(first.warnings, []);
    assert.notEqual(second.storePrefix, first.storePrefix);
    assert.equal(second.warnings.length, 1);
    assert.match(second.warnings[0]!, /another run's keys/);
    // Every key of the second run is under its namespace.
    const redis = new Redis(server.url);
    try {
      const keys = await redis.keys('*');
      const mine = keys.filter((k) => k.includes(second.storePrefix!));
      assert.ok(mine.length > 0, 'the second run wrote keys');
      assert.ok(
        keys.every((k) => k.includes(first.storePrefix!) || k.includes(second.storePrefix!)),
        `keys outside both namespaces: ${keys.filter((k) => !k.includes(first.storePrefix!) && !k.includes(second.storePrefix!)).slice(0, 3)}`,
      );
    } finally {
      redis.disconnect();
    }
  });
});
