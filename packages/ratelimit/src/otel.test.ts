import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Meter } from '@opentelemetry/api';
import { type DataPoint, type Histogram, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { VirtualClock } from '@rxgate/testkit';
import { isDeadlineExceededError } from './errors.js';
import { createLimiter } from './limiter.js';
import { limiterTelemetry, type MeterLike } from './otel.js';

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
const values = (points: DataPoint<unknown>[] | undefined) =>
  (points ?? []).map((p) => [p.attributes, p.value]);

describe('limiterTelemetry (OpenTelemetry SDK)', () => {
  it('counts admissions, waits, refusals, adaptations and pauses, and reads the rate in force', async () => {
    const reader = new TestReader();
    const provider = new MeterProvider({ readers: [reader] });
    const telemetry = limiterTelemetry({ meter: fits(provider.getMeter('@rxgate/ratelimit')) });
    const clock = new VirtualClock();
    const limiter = createLimiter({
      account: { ratePerSecond: 10, burst: 2 },
      clock,
      onEvent: telemetry.onEvent,
    });
    telemetry.observe(limiter);

    await limiter.acquire({ key: 'ADV' });
    await limiter.acquire({ key: 'ADV', lane: 'batch' });
    // The bucket is empty: the next token is 100 ms away.
    const waited = limiter.acquire({ key: 'ADV' });
    await clock.advance(100);
    await waited;
    await assert.rejects(
      limiter.acquire({ key: 'ADV', deadline: clock.now() + 10 }),
      isDeadlineExceededError,
    );
    // A throttle without headers cuts the rate; a Retry-After pauses everyone.
    limiter.observe({ throttled: true });
    limiter.observe({ retryAfterMs: 1500, throttled: true });

    const points = await collect(reader);
    assert.deepEqual(values(points.get('rxgate.limiter.acquired')), [
      [{ lane: 'pos' }, 2],
      [{ lane: 'batch' }, 1],
    ]);
    const waits = points.get('rxgate.limiter.wait')!.find((p) => p.attributes.lane === 'pos')!
      .value as Histogram;
    assert.equal(waits.count, 2);
    assert.equal(waits.sum, 0.1, 'seconds: one wait of 100 ms, one of none');
    assert.deepEqual(values(points.get('rxgate.limiter.rejections')), [
      [{ lane: 'pos', reason: 'deadline' }, 1],
    ]);
    assert.deepEqual(
      values(points.get('rxgate.limiter.adaptations')).map(([a]) => a),
      [{ level: 'rx:acct', reason: 'throttle', direction: 'down' }],
    );
    assert.deepEqual(values(points.get('rxgate.limiter.pauses')), [[{ level: 'rx:acct' }, 1]]);
    const [[level, rate]] = values(points.get('rxgate.limiter.rate')) as [[{ level: string }, number]];
    assert.deepEqual(level, { level: 'account' });
    assert.ok(rate > 0 && rate < 10, `the cut rate is in force: ${rate}`);
    assert.equal(rate, (await limiter.snapshot()).ratePerSecond);
    assert.deepEqual(values(points.get('rxgate.limiter.waiting')), [[{ level: 'account' }, 0]]);
    await provider.shutdown();
  });
});
