// A diagnostics-channel subscriber alone (no onEvent, no OpenTelemetry) still gets every event:
// the router builds its per-claim events only when something hears them.
import assert from 'node:assert/strict';
import diagnostics_channel from 'node:diagnostics_channel';
import { it } from 'node:test';
import { createLimiter } from '@rxgate/ratelimit';
import { channelOf, ROUTER_CHANNELS } from './channels.js';
import { MemoryLedger } from './memory-ledger.js';
import { createRouter } from './router.js';
import { rawClaim, SECRET } from './test-support/fixtures.js';
import { functionTransport } from './transport.js';

it('with only a channel subscriber, the attempt and outcome events are published', async () => {
  const heard: string[] = [];
  const listen = (m: unknown) => heard.push((m as { type: string }).type);
  diagnostics_channel.subscribe(ROUTER_CHANNELS.attempt, listen);
  diagnostics_channel.subscribe(ROUTER_CHANNELS.outcome, listen);
  try {
    const router = createRouter({
      nodes: [{ name: 'primary', url: 'http://x.test' }],
      idempotencySecret: SECRET,
      telemetry: false,
      ledger: new MemoryLedger(),
      limiter: createLimiter({ account: { ratePerSecond: 1000, burst: 100 } }),
      transport: functionTransport(() => ({
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ '112-AN': 'P', '509-F9': '7.34' }),
      })),
    });
    assert.equal((await router.submit(rawClaim())).kind, 'paid');
    await router.close();
    assert.deepEqual(heard, ['attempt', 'outcome']);
  } finally {
    diagnostics_channel.unsubscribe(ROUTER_CHANNELS.attempt, listen);
    diagnostics_channel.unsubscribe(ROUTER_CHANNELS.outcome, listen);
  }
});

it('channelOf gives, for every event type, the channel of its name', () => {
  for (const [type, name] of Object.entries(ROUTER_CHANNELS))
    assert.equal(channelOf(type as keyof typeof ROUTER_CHANNELS), diagnostics_channel.channel(name), type);
});
