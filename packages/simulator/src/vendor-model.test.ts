import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseScenario, type ScenarioInput } from './scenario.js';
import { type NodeName, paymentIdentity, type VendorAction, VendorModel } from './vendor-model.js';
import { VirtualClock } from './virtual-clock.js';

const START = Date.parse('2026-12-01T08:00:00Z');

function claimBody(rx: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    '103-A3': 'B1',
    '101-A1': '610014',
    '104-A4': 'RXGATE',
    '201-B1': '1234567890',
    '402-D2': rx,
    '403-D3': 0,
    '407-D7': '00002323230',
    '409-D9': '12.50',
    '401-D1': '20261201',
    ...extra,
  });
}

function vendor(input: Partial<ScenarioInput> & Pick<ScenarioInput, 'vendor'>): {
  model: VendorModel;
  clock: VirtualClock;
} {
  const scenario = parseScenario({
    name: 'unit',
    seed: 7,
    traffic: { durationMs: 60_000, ratePerSecond: 1 },
    client: { limiter: { ratePerSecond: 10, burst: 5 } },
    thresholds: [],
    ...input,
  });
  const clock = new VirtualClock(START);
  return { model: new VendorModel(scenario, clock, START), clock };
}

function send(model: VendorModel, key: string, body: string, node: NodeName = 'primary'): VendorAction {
  return model.handle(node, { path: '/v1/adjudicate', headers: { 'idempotency-key': key }, body });
}

const respond = (a: VendorAction) => {
  assert.equal(a.kind, 'respond');
  return a as Extract<VendorAction, { kind: 'respond' }>;
};

/**
 * Sends requests at one instant until one is refused; the headers of every answer must tell
 * the truth about what follows: `remaining` r means exactly r more are admitted now, and
 * no more than `limit` are admitted in all.
 */
function headersTellTheTruth(model: VendorModel, tag: string): number {
  const answers: Array<ReturnType<typeof respond>> = [];
  for (let i = 0; i < 1000; i++) {
    const a = respond(send(model, `${tag}-${i}`, claimBody(`${tag}${i}`)));
    answers.push(a);
    if (a.status === 429 || a.status === 503) break;
  }
  const admitted = answers.length - 1;
  assert.ok(admitted < 1000, 'never refused');
  for (const [k, a] of answers.entries()) {
    const remaining = Number(a.headers['x-ratelimit-remaining']);
    assert.equal(
      remaining,
      Math.max(0, admitted - k - 1),
      `answer ${k}: remaining ${remaining}, admitted ${admitted}`,
    );
    assert.ok(
      Number(a.headers['x-ratelimit-limit']) >= admitted,
      `limit ${a.headers['x-ratelimit-limit']} < ${admitted}`,
    );
    const ietf = /r=(\d+)/.exec(a.headers.ratelimit ?? '');
    if (ietf) assert.equal(Number(ietf[1]), remaining, 'IETF RateLimit r= agrees with X-RateLimit-Remaining');
  }
  return admitted;
}

describe('VendorModel', () => {
  it('a window quota admits exactly its limit per window, and its headers say so', async () => {
    const { model, clock } = vendor({ vendor: { quota: { kind: 'window', limit: 10, windowMs: 1000 } } });
    assert.equal(headersTellTheTruth(model, 'a'), 10);
    assert.equal(model.remaining('primary'), 0);
    await clock.run(START + 1000);
    assert.equal(model.remaining('primary'), 10);
    assert.equal(headersTellTheTruth(model, 'b'), 10);
  });

  it('a 429-storm lowers Limit and Remaining to what it admits (a quarter), and they come back after', async () => {
    const { model, clock } = vendor({
      vendor: { quota: { kind: 'window', limit: 10, windowMs: 1000 } },
      faults: [{ kind: '429-storm', startMs: 5000, endMs: 10_000 }],
    });
    await clock.run(START + 5000);
    assert.equal(model.remaining('primary'), 2, 'the storm window admits floor(10/4) = 2');
    const before = respond(send(model, 's0', claimBody('s0')));
    assert.equal(before.headers['x-ratelimit-limit'], '2');
    assert.match(before.headers['ratelimit-policy'] ?? '', /q=2;/);
    await clock.run(START + 6000);
    assert.equal(headersTellTheTruth(model, 's'), 2);
    await clock.run(START + 10_000);
    assert.equal(model.remaining('primary'), 10);
    assert.equal(headersTellTheTruth(model, 't'), 10);
  });

  it('a token-bucket quota: its headers tell the truth too, in a storm as outside one', async () => {
    const { model, clock } = vendor({
      vendor: { quota: { kind: 'bucket', ratePerSecond: 8, burst: 16 } },
      faults: [{ kind: '429-storm', startMs: 5000, endMs: 10_000 }],
    });
    assert.equal(headersTellTheTruth(model, 'a'), 16);
    await clock.run(START + 6000);
    const inStorm = headersTellTheTruth(model, 's');
    assert.ok(inStorm <= 4, `a storm admits at most a quarter of the burst, admitted ${inStorm}`);
  });

  it('counts payments by claim content, never by key: one claim under two keys or on two nodes is paid twice', () => {
    const { model } = vendor({
      vendor: { quota: { kind: 'window', limit: 100, windowMs: 1000 }, rejects: {} },
      nodes: { fallback: true, sharedIdempotency: false },
    });
    const first = respond(send(model, 'k1', claimBody('7')));
    assert.equal(first.status, 200);
    assert.match(first.body, /"112-AN":"P"/);
    // The same key replays the stored answer and pays nothing more.
    const replay = respond(send(model, 'k1', claimBody('7')));
    assert.equal(replay.body, first.body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual([...model.payments.values()], [1]);
    // Another key for the same claim content, and the same key on the other node: both pay.
    respond(send(model, 'k2', claimBody('7')));
    respond(send(model, 'k1', claimBody('7'), 'fallback'));
    assert.deepEqual([...model.payments.values()], [3]);
    // Another fill of the same prescription is another claim.
    respond(send(model, 'k3', claimBody('7', { '403-D3': 1 })));
    assert.equal(model.payments.size, 2);
  });

  it('paid amounts are decimal strings that add up: paid + copay = cost', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9_999_999 }), (cents) => {
        const { model } = vendor({
          vendor: { quota: { kind: 'window', limit: 100, windowMs: 1000 }, rejects: {} },
        });
        const cost = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
        const a = respond(send(model, 'k', claimBody('1', { '409-D9': cost })));
        const body = JSON.parse(a.body) as Record<string, string>;
        for (const f of ['505-F5', '506-F6', '509-F9']) assert.match(body[f]!, /^\d+\.\d{2}$/);
        const asCents = (s: string) => Number(s.replace('.', ''));
        assert.equal(asCents(body['509-F9']!) + asCents(body['505-F5']!), cents);
        assert.equal(body['506-F6'], cost);
      }),
      { numRuns: 200 },
    );
  });

  it('503-maintenance answers 503 with a Retry-After reaching to the end of the window, on its node only', async () => {
    const { model, clock } = vendor({
      vendor: { quota: { kind: 'window', limit: 100, windowMs: 1000 } },
      nodes: { fallback: true, sharedIdempotency: false },
      faults: [{ kind: '503-maintenance', node: 'primary', startMs: 10_000, endMs: 40_000 }],
    });
    await clock.run(START + 15_500);
    const a = respond(send(model, 'm', claimBody('1')));
    assert.equal(a.status, 503);
    assert.equal(a.headers['retry-after'], '25');
    assert.equal(respond(send(model, 'm', claimBody('1'), 'fallback')).status, 200);
    assert.deepEqual(model.faultsFired, [1]);
    await clock.run(START + 40_000);
    assert.equal(respond(send(model, 'm', claimBody('1'))).status, 200);
  });

  it('outage refuses the connection; ambiguous-commit pays and then loses the answer', async () => {
    const { model, clock } = vendor({
      vendor: { quota: { kind: 'window', limit: 100, windowMs: 1000 }, rejects: {} },
      faults: [
        { kind: 'outage', startMs: 0, endMs: 1000 },
        { kind: 'ambiguous-commit', startMs: 1000, endMs: 2000 },
      ],
    });
    assert.equal(send(model, 'o', claimBody('1')).kind, 'refuse');
    assert.equal(model.payments.size, 0);
    await clock.run(START + 1000);
    const lost = send(model, 'c', claimBody('2'));
    assert.ok(lost.kind === 'reset' || lost.kind === 'hang', lost.kind);
    assert.deepEqual([...model.payments.values()], [1]);
    await clock.run(START + 2000);
    // The retry under the same key replays the payment: still one.
    const replay = respond(send(model, 'c', claimBody('2')));
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual([...model.payments.values()], [1]);
  });
});

describe('the vendor model and the claim life: reversals by content', () => {
  it('a B2 undoes a standing payment by content (112-AN A), a known key replays, a B2 of nothing paid is 87; a rebill after it is no double payment, two standing payments are', () => {
    const { model } = vendor({
      vendor: { quota: { kind: 'bucket', ratePerSecond: 1000, burst: 1000 }, rejects: {} },
    });
    const b2 = JSON.stringify({
      '103-A3': 'B2',
      '101-A1': '610014',
      '104-A4': 'RXGATE',
      '201-B1': '1234567890',
      '402-D2': '900',
      '403-D3': 0,
      '401-D1': '20261201',
      '407-D7': '00002323230',
    });
    const body = (a: VendorAction) => JSON.parse(respond(a).body as string) as Record<string, unknown>;
    assert.deepEqual(body(send(model, 'r0', b2))['511-FB'], ['87']);
    assert.equal(body(send(model, 'k0', claimBody('900')))['112-AN'], 'P');
    assert.equal(body(send(model, 'r1', b2))['112-AN'], 'A');
    assert.equal(respond(send(model, 'r1', b2)).headers['idempotent-replayed'], 'true');
    assert.equal(body(send(model, 'k1', claimBody('900')))['112-AN'], 'P'); // the rebill
    assert.equal(model.reversals, 1);
    assert.deepEqual([...model.paidTwice], []);
    // Paid again under another key while the rebill stands: two payments at once.
    assert.equal(body(send(model, 'k2', claimBody('900')))['112-AN'], 'P');
    assert.equal(model.paidTwice.size, 1);
  });
});

describe('paymentIdentity', () => {
  it('is the template it replaced, for any field values, missing and null included (property)', () => {
    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constantFrom(undefined, null),
      fc.array(fc.string(), { maxLength: 2 }),
    );
    const codes = ['101-A1', '104-A4', '201-B1', '402-D2', '403-D3', '401-D1', '407-D7'];
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...codes), value), (claim) => {
        const byTemplate = `${claim['101-A1']}|${claim['104-A4']}|${claim['201-B1']}|${claim['402-D2']}|${claim['403-D3']}|${claim['401-D1']}`;
        assert.equal(paymentIdentity(claim), byTemplate);
      }),
      { numRuns: 3000 },
    );
  });
});
