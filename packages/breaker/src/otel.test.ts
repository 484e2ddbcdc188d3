import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Meter } from '@opentelemetry/api';
import { type DataPoint, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { VirtualClock } from '@rxgate/testkit';
import { createBreakers } from './breakers.js';
import { breakerTelemetry, type MeterLike } from './otel.js';

// The type this module asks for is what @opentelemetry/api hands out.
const fits = (meter: Meter): MeterLike => meter;

class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

async function collect(reader: TestReader): Promise<Map<string, DataPoint<unknown>[]>> {
  const { resourceMetrics } = await reader.collect();
  const out = new Map<string, DataPoint<unknown>[]>();
  for (const scope of resourceMetrics.scopeMetrics)
    for (const m of scope.metrics) out.set(m.descriptor.name, m.dataPoints as DataPoint<unknown>[]);
  return out;
}

describe('breakerTelemetry (OpenTelemetry SDK)', () => {
  it('counts transitions, rejections and probes per key, and reports each key’s state', async () => {
    const reader = new TestReader();
    const provider = new MeterProvider({ readers: [reader] });
    const telemetry = breakerTelemetry({ meter: fits(provider.getMeter('@rxgate/breaker')) });
    const clock = new VirtualClock();
    const breakers = createBreakers({
      defaults: { policy: { kind: 'consecutive', threshold: 2 }, openDuration: 1000 },
      clock,
      onEvent: telemetry.onEvent,
    });
    telemetry.observe(breakers);

    for (let i = 0; i < 2; i++) {
      const p = breakers.tryAcquire('primary:retail');
      assert.equal(p.kind, 'permit');
      if (p.kind === 'permit') p.failure();
    }
    assert.equal(breakers.tryAcquire('primary:retail').kind, 'rejected');
    assert.equal(breakers.tryAcquire('primary:retail').kind, 'rejected');
    const ok = breakers.tryAcquire('fallback:retail');
    if (ok.kind === 'permit') ok.success();

    let points = await collect(reader);
    const key = 'rxgate.breaker.key';
    assert.deepEqual(
      points.get('rxgate.breaker.transitions')!.map((p) => [p.attributes, p.value]),
      [[{ [key]: 'primary:retail', from: 'closed', to: 'open', reason: 'failure-policy' }, 1]],
    );
    assert.deepEqual(
      points.get('rxgate.breaker.rejections')!.map((p) => [p.attributes, p.value]),
      [[{ [key]: 'primary:retail', state: 'open' }, 2]],
    );
    const state = (k: string) =>
      points
        .get('rxgate.breaker.state')!
        .filter((p) => p.attributes[key] === k && p.value === 1)
        .map((p) => p.attributes.state);
    assert.deepEqual(state('primary:retail'), ['open']);
    assert.deepEqual(state('fallback:retail'), ['closed']);

    // The open duration passes: one probe, which succeeds and closes the breaker.
    await clock.advance(1000);
    const probe = breakers.tryAcquire('primary:retail');
    assert.equal(probe.kind, 'permit');
    if (probe.kind === 'permit') probe.success();
    points = await collect(reader);
    assert.deepEqual(
      points.get('rxgate.breaker.probes')!.map((p) => [p.attributes, p.value]),
      [[{ [key]: 'primary:retail', health: false, outcome: 'success' }, 1]],
    );
    assert.deepEqual(state('primary:retail'), ['closed']);
    assert.deepEqual(
      points
        .get('rxgate.breaker.transitions')!
        .map((p) => `${p.attributes.from}->${p.attributes.to}:${p.value}`)
        .sort(),
      ['closed->open:1', 'half-open->closed:1', 'open->half-open:1'],
    );
    await provider.shutdown();
  });
});
