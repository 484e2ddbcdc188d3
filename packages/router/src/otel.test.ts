// The router's OpenTelemetry and diagnostics channels, read through the real SDKs: every
// instrument and span it makes, and no patient data in any of them (searched as plain text).
import assert from 'node:assert/strict';
import diagnostics_channel from 'node:diagnostics_channel';
import { describe, it } from 'node:test';
import { metrics } from '@opentelemetry/api';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createBreakers } from '@rxgate/breaker';
import { createLimiter } from '@rxgate/ratelimit';
import { seededRandom, VirtualClock } from '@rxgate/testkit';
import { ROUTER_CHANNELS } from './channels.js';
import { MemoryLedger } from './memory-ledger.js';
import { createRouter } from './router.js';
import { rawClaim, SECRET } from './test-support/fixtures.js';
import { PAID } from './test-support/vendor.js';
import { settle, virtualVendors } from './test-support/virtual-vendor.js';

class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

// Patient data of the claims sent: none of it may appear in a metric, a span or a channel message.
const PHI = { cardholder: 'QZ7781234PHI', first: 'QUENTINAPHI', last: 'VANDERBOOMPHI', dob: '19570823' };

async function run() {
  const clock = new VirtualClock(Date.parse('2026-11-30T12:00:00Z'));
  const reader = new TestReader();
  const meter = new MeterProvider({ readers: [reader] }).getMeter('test');
  const spans = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }).getTracer(
    'test',
  );
  const vendors = virtualVendors(clock);
  const primary = vendors.vendor();
  const fallback = vendors.vendor();
  const published: unknown[] = [];
  const listen = (m: unknown) => published.push(m);
  for (const name of Object.values(ROUTER_CHANNELS)) diagnostics_channel.subscribe(name, listen);
  const router = createRouter({
    clock,
    random: seededRandom(17),
    ledger: new MemoryLedger(),
    nodes: [
      { name: 'primary', url: primary.url },
      { name: 'fallback', url: fallback.url },
    ],
    idempotencySecret: SECRET,
    transport: vendors.transport,
    limiter: createLimiter({ account: { ratePerSecond: 1000, burst: 100 }, clock }),
    breakers: createBreakers({
      clock,
      random: seededRandom(3),
      defaults: { policy: { kind: 'consecutive', threshold: 2 }, openDuration: 5000 },
    }),
    lanes: { pos: { default: 5000 }, batch: { default: 60_000 } },
    retry: { baseMs: 10, capMs: { pos: 50, batch: 100 } },
    telemetry: { meter, tracer },
  });
  const phiClaim = (rx: string) =>
    rawClaim({
      '402-D2': rx,
      '302-C2': PHI.cardholder,
      '310-CA': PHI.first,
      '311-CB': PHI.last,
      '304-C4': PHI.dob,
    });
  // A throttle with quota headers, a transient, a reject, failover past a broken primary, paid.
  primary.script.push(
    { status: 429, headers: { 'retry-after': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-limit': '10' } },
    { status: 200, body: PAID, headers: { 'x-ratelimit-remaining': '7', 'x-ratelimit-limit': '10' } },
    { status: 503 },
    { status: 200, body: PAID },
    { status: 200, body: { '112-AN': 'R', '511-FB': ['75'] } },
    { status: 503 },
    { status: 503 },
    { status: 503 },
    { status: 503 },
  );
  const outcomes = [];
  for (const [i, lane] of (['pos', 'batch', 'pos', 'pos', 'batch'] as const).entries())
    outcomes.push(await settle(clock, router.submit(phiClaim(`00012345${i}`), { lane })));
  outcomes.push(await settle(clock, router.submit({ ...phiClaim('1'), '101-A1': 'x' })));
  await settle(clock, router.close());
  for (const name of Object.values(ROUTER_CHANNELS)) diagnostics_channel.unsubscribe(name, listen);
  const { resourceMetrics } = await reader.collect();
  return {
    outcomes,
    metrics: resourceMetrics.scopeMetrics.flatMap((s) => s.metrics),
    spans: spans.getFinishedSpans(),
    published,
  };
}

describe('router OpenTelemetry', () => {
  it('counts claims, attempts and events, times them, and wires the limiter and breakers', async () => {
    const { outcomes, metrics } = await run();
    const byName = new Map(metrics.map((m) => [m.descriptor.name, m]));
    const sum = (name: string, where: (a: Record<string, unknown>) => boolean = () => true) =>
      (byName.get(name)?.dataPoints ?? [])
        .filter((d) => where(d.attributes))
        .reduce(
          (n, d) => n + (typeof d.value === 'number' ? d.value : (d.value as { count: number }).count),
          0,
        );
    assert.equal(sum('rxgate.router.claims'), outcomes.length);
    assert.equal(sum('rxgate.router.claim.duration'), outcomes.length);
    for (const kind of new Set(outcomes.map((o) => o.kind)))
      assert.equal(
        sum('rxgate.router.claims', (a) => a['rxgate.outcome'] === kind),
        outcomes.filter((o) => o.kind === kind).length,
        kind,
      );
    const attempts = outcomes.reduce((n, o) => n + o.attempts, 0);
    assert.equal(sum('rxgate.router.attempts'), attempts);
    assert.equal(sum('rxgate.router.attempt.duration'), attempts);
    assert.equal(
      sum('rxgate.router.attempts', (a) => a['rxgate.verdict'] === 'throttled'),
      1,
    );
    assert.ok(sum('rxgate.router.attempts', (a) => a['http.response.status_code'] === 503) >= 3);
    assert.ok(sum('rxgate.router.events', (a) => String(a['event.name']).startsWith('wait:')) >= 1);
    assert.ok(sum('rxgate.router.events', (a) => String(a['event.name']).startsWith('failover:')) >= 1);
    assert.ok(sum('rxgate.router.wait.duration') >= 1);
    // The vendor's last quota word, per node.
    assert.deepEqual(
      byName
        .get('rxgate.router.quota.remaining')
        ?.dataPoints.map((d) => [d.attributes['rxgate.node'], d.value]),
      [['primary', 7]],
    );
    // The limiter's and breakers' own instruments, through the router.
    assert.equal(sum('rxgate.limiter.acquired'), attempts);
    assert.ok(sum('rxgate.limiter.pauses') >= 1, 'the Retry-After paused the limiter');
    assert.ok(byName.has('rxgate.limiter.rate'));
    assert.ok(sum('rxgate.breaker.transitions', (a) => a.to === 'open') >= 1, 'the primary breaker opened');
  });

  it('makes a span per claim with a child per attempt', async () => {
    const { outcomes, spans } = await run();
    const claims = spans.filter((s) => s.name === 'rxgate.claim');
    const children = spans.filter((s) => s.name === 'rxgate.attempt');
    assert.equal(claims.length, outcomes.length);
    assert.equal(
      children.length,
      outcomes.reduce((n, o) => n + o.attempts, 0),
    );
    for (const c of children) {
      const parent = claims.find((p) => p.spanContext().spanId === c.parentSpanContext?.spanId);
      assert.ok(parent, 'each attempt hangs under its claim');
      assert.equal(parent.spanContext().traceId, c.spanContext().traceId);
    }
    const failedOver = claims.find((s) => s.events.some((e) => e.name.startsWith('failover:')));
    assert.ok(failedOver, 'decisions are span events');
  });

  it('publishes every event on the diagnostics channels', async () => {
    const { outcomes, published } = await run();
    const types = published.map((m) => (m as { type: string }).type);
    assert.equal(types.filter((t) => t === 'outcome').length, outcomes.length);
    assert.equal(
      types.filter((t) => t === 'attempt').length,
      outcomes.reduce((n, o) => n + o.attempts, 0),
    );
    assert.ok(types.includes('decision') && types.includes('breaker'));
  });

  it('carries no patient data in any instrument, attribute, span or channel message', async () => {
    const { metrics, spans, published } = await run();
    const text = JSON.stringify({
      metrics: metrics.map((m) => ({ d: m.descriptor, points: m.dataPoints.map((p) => p.attributes) })),
      spans: spans.map((s) => ({ n: s.name, a: s.attributes, e: s.events, st: s.status })),
      published,
    });
    // The oracle: plain search for the values sent (not a list of field names).
    assert.ok(
      text.includes('rxgate.router.claims') && text.includes('rxgate.attempt'),
      'the text is what was searched',
    );
    for (const v of Object.values(PHI)) assert.ok(!text.includes(v), `found ${v}`);
  });

  it('uses the global meter provider by default, and records nothing with telemetry: false', async () => {
    const reader = new TestReader();
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    const clock = new VirtualClock(0);
    const vendors = virtualVendors(clock);
    const v = vendors.vendor();
    const make = (telemetry?: false) =>
      createRouter({
        clock,
        ledger: new MemoryLedger(),
        nodes: [{ name: 'primary', url: v.url }],
        idempotencySecret: SECRET,
        transport: vendors.transport,
        ...(telemetry === undefined ? {} : { telemetry }),
      });
    const off = make(false);
    assert.equal((await settle(clock, off.submit(rawClaim({ '402-D2': '1' })))).kind, 'paid');
    const claims = async () =>
      (await reader.collect()).resourceMetrics.scopeMetrics
        .flatMap((s) => s.metrics)
        .filter((m) => m.descriptor.name === 'rxgate.router.claims')
        .flatMap((m) => m.dataPoints.map((d) => d.value));
    assert.deepEqual(await claims(), []);
    const on = make();
    assert.equal((await settle(clock, on.submit(rawClaim({ '402-D2': '2' })))).kind, 'paid');
    assert.deepEqual(await claims(), [1]);
    metrics.disable();
  });
});
