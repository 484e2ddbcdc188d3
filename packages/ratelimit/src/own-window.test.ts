import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type OwnReading, OwnSends, windowFromOwnSends } from './own-window.js';
import { RemainingOnlyRate, windowPace } from './remaining-only.js';

const CANDIDATES = [500, 1000, 2000, 10_000];
// `n` answers that each say `counted`, against sends of `rate` a second over `historyMs`.
const steady = (n: number, counted: number, rate: number, historyMs: number): OwnReading[] =>
  Array.from({ length: n }, () => ({
    counted,
    sent: CANDIDATES.map((w) => (w < historyMs ? (rate * w) / 1000 : Number.NaN)),
    all: (rate * historyMs) / 1000,
  }));

describe('windowFromOwnSends: the window over which we sent what the vendor counted', () => {
  const table: [string, OwnReading[], number | undefined][] = [
    ['10/s sent, 10 counted, 5 s of history: 1 s', steady(16, 10, 10, 5000), 1000],
    ['10/s sent, 20 counted: 2 s', steady(16, 20, 10, 5000), 2000],
    ['10/s sent, 50 counted, 60 s of history: no candidate (5 s)', steady(16, 50, 10, 60_000), undefined],
    [
      '10/s sent, 20 counted, 2 s of history: all we sent, any longer window',
      steady(16, 20, 10, 2000),
      undefined,
    ],
    ['too few answers', steady(7, 10, 10, 5000), undefined],
    ['2 counted: too little to read', steady(16, 2, 10, 5000), undefined],
    [
      'one count off by 4, the others right: read on average',
      [...steady(15, 10, 10, 5000), ...steady(1, 14, 10, 5000)],
      1000,
    ],
  ];
  for (const [name, readings, expected] of table)
    it(name, () => assert.equal(windowFromOwnSends(readings, CANDIDATES), expected));
});

describe('OwnSends: what we sent over the last ms', () => {
  it('interpolates between records, and counts all of the log when asked for more', () => {
    const s = new OwnSends(10_000);
    for (let t = 0; t <= 3000; t += 100) s.record(t, t / 100);
    assert.equal(s.sentWithin(1000), 10);
    assert.equal(s.sentWithin(1050), 10.5);
    assert.equal(s.sentWithin(5000), 30);
    assert.equal(s.spanMs(3000), 3000);
  });
  it('forgets what is older than it keeps', () => {
    const s = new OwnSends(1000);
    for (let t = 0; t <= 3000; t += 100) s.record(t, t / 100);
    assert.ok(s.spanMs(3000) <= 1100, `span ${s.spanMs(3000)}`);
  });
});

// A sliding log of `limit` per `windowMs`, sent to at `share` of its rate; each answer comes back
// after a round trip drawn from a seeded log-normal (p50 120 ms, p99 600 ms, as the zoo's slow
// vendor), out of order. We know what we sent and what came back (answers so far).
function slidingLog(limit: number, windowMs: number, share: number, seconds: number): RemainingOnlyRate {
  const r = new RemainingOnlyRate(0.1, 0.99);
  let seed = 11;
  const random = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return (seed + 0.5) / 2 ** 31;
  };
  const gauss = (): number => Math.sqrt(-2 * Math.log(random())) * Math.cos(2 * Math.PI * random());
  const every = windowMs / (share * limit);
  const log: number[] = [];
  const events: { at: number; remaining: number; sent: number; answer: boolean }[] = [];
  let sent = 0;
  for (let t = 0; t < seconds * 1000; t += every) {
    sent++;
    while (log.length > 0 && log[0]! <= t - windowMs) log.shift();
    log.push(t);
    events.push({ at: t, remaining: 0, sent, answer: false });
    events.push({
      at: t + 120 * Math.exp(0.69 * gauss()),
      remaining: limit - log.length,
      sent,
      answer: true,
    });
  }
  events.sort((a, b) => a.at - b.at);
  let admitted = 0;
  let answered = 0;
  for (const e of events) {
    if (!e.answer) admitted++;
    else {
      answered++;
      r.answer(e.at, e.remaining, limit, admitted, answered, (share * limit * 1000) / windowMs, -Infinity);
    }
  }
  return r;
}

describe('RemainingOnlyRate: a sliding log read from what we sent, before any throttle', () => {
  const table: [string, number, number, number, number][] = [
    // name, limit, window (ms), share of its rate sent, seconds of answers
    ['20 a second (the zoo), at half its rate', 20, 1000, 0.5, 8],
    ['7 a second, at 80 % of it', 7, 1000, 0.8, 20],
    ['100 per 10 s, at half its rate', 100, 10_000, 0.5, 40],
    ['600 per 60 s, at half its rate', 600, 60_000, 0.5, 150],
  ];
  for (const [name, limit, windowMs, share, seconds] of table)
    it(`${name}: the window, and 99 % of its rate, within ${seconds} s`, () => {
      const r = slidingLog(limit, windowMs, share, seconds);
      assert.equal(r.windowMs, windowMs);
      assert.ok(Math.abs(r.rate! - (0.99 * limit * 1000) / windowMs) < 1e-9, `rate ${r.rate}`);
    });

  it('a bucket we never drain (Remaining at its capacity less one) says no window', () => {
    const r = new RemainingOnlyRate(0.1, 0.99);
    for (let i = 1; i <= 200; i++) r.answer(i * 100, 19, 20, i, i, 10, -Infinity);
    assert.equal(r.windowMs, undefined);
  });
});

describe('windowPace: a window read from Remaining, under the least rate throttled at', () => {
  const table: [string, number, number][] = [
    // name, upper (the least rate throttled at), the pace expected, for 20 per 1 s
    ['no throttle: 99 % of 20/s', Number.POSITIVE_INFINITY, 19.8],
    ['throttled at 20/s (the window itself): 99 % of it', 20, 19.8],
    ['throttled at 19.7/s (what a bucket freed, read a little low): 19.7/s', 19.7, 19.7],
    ['throttled at 15/s (the window overstates): 98.5 % of 15/s', 15, 14.775],
  ];
  for (const [name, upper, expected] of table)
    it(name, () => {
      const pace = windowPace({ limit: 20, windowMs: 1000, targetShare: 0.99, upper, upperShare: 0.985 });
      assert.ok(Math.abs(pace - expected) < 1e-9, `pace ${pace}`);
    });
});
