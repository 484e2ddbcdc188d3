import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { answerBounds, sameWindowEnd } from './window-end.js';
import { type ZeroPauseInput, zeroPauseEnd } from './zero-pause.js';

describe('zeroPauseEnd: where a pause at 0 of a fixed window ends', () => {
  // A window of 10 per 1000 ms, paced at 0.99 of it; the answer at 2000 bounds the end at 2060.
  const base: ZeroPauseInput = {
    now: 2000,
    boundEnd: 2060,
    limit: 10,
    windowMs: 1000,
    share: 0.99,
    counted: 10,
    firstAt: 1020,
    sameWindow: true,
    firstToAnswered: 10,
    limitthLast: 1020,
  };
  const rows: readonly [string, Partial<ZeroPauseInput>, number][] = [
    [
      'the window ours from its first request: a window (over the share) after that one',
      {},
      1020 + 1000 / 0.99,
    ],
    ['never later than the bound', { firstAt: 1100, limitthLast: 1100 }, 2060],
    ['never before now', { firstAt: 900, limitthLast: 900, now: 2030 }, 2030],
    [
      'our limit-th last admission later than the first: a window after it (our last limit span a window)',
      { limitthLast: 1040 },
      1040 + 1000 / 0.99,
    ],
    [
      'another client counted in it (we sent fewer than the vendor counted): the bound',
      { firstToAnswered: 9 },
      2060,
    ],
    [
      'we sent more from that first one than counted: it was an earlier window’s first, the bound',
      { firstToAnswered: 11 },
      2060,
    ],
    ['the first one’s answer of another window: the bound', { sameWindow: false }, 2060],
    ['our admissions not known: the bound', { firstToAnswered: undefined }, 2060],
    ['fewer than limit admissions known: the bound', { limitthLast: undefined }, 2060],
    [
      'a budget (the vendor counted 6 so far): the same end',
      { counted: 6, firstToAnswered: 6 },
      1020 + 1000 / 0.99,
    ],
  ];
  for (const [name, change, want] of rows)
    it(name, () => assert.equal(zeroPauseEnd({ ...base, ...change }), want));
});

describe('sameWindowEnd', () => {
  const b = (low: number, high: number) => ({ low, high });
  it('ends that may be a window apart or more are not known to be of one window', () => {
    assert.equal(sameWindowEnd(b(990, 1040), b(1000, 1030), 1000), true);
    // Wide bounds (a long round trip) still tell, while all they allow is under a window apart.
    assert.equal(sameWindowEnd(b(700, 1400), b(1000, 1030), 1000), true);
    assert.equal(sameWindowEnd(b(400, 1100), b(1000, 1400), 1000), false);
    assert.equal(sameWindowEnd(b(1000, 1030), b(2000, 2030), 1000), false);
  });
});

// A vendor written here, apart from the limiter: `limit` per window of 1000 ms, the window
// aligned on the clock or started by the first request after the last one ended. Requests
// arrive when sent; ours and another client's.
type Arrival = { readonly at: number; readonly ours: boolean; readonly rtt: number };
const W = 1000;

function windows(model: 'aligned' | 'expiring', limit: number, arrivals: readonly Arrival[]) {
  let start = Number.NEGATIVE_INFINITY;
  let count = 0;
  return arrivals.map((a) => {
    const begins = model === 'aligned' ? Math.floor(a.at / W) * W : a.at >= start + W ? a.at : start;
    if (begins !== start) {
      start = begins;
      count = 0;
    }
    const admitted = count < limit;
    if (admitted) count++;
    return { ...a, admitted, count, end: start + W };
  });
}

describe('zeroPauseEnd against a vendor written apart, another client sharing it', () => {
  it('property: when it ends a pause before the bound, the window the answered request was counted in has ended', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('aligned' as const, 'expiring' as const),
        fc.integer({ min: 2, max: 8 }),
        fc.array(
          fc.record({
            gap: fc.integer({ min: 0, max: 400 }),
            ours: fc.boolean(),
            rtt: fc.integer({ min: 1, max: 900 }),
          }),
          { minLength: 2, maxLength: 60 },
        ),
        fc.nat(),
        fc.nat(),
        (model, limit, steps, pickX, pickFirst) => {
          let t = 0;
          const arrivals = steps.map((s) => {
            t += s.gap;
            return { at: t, ours: s.ours, rtt: s.rtt };
          });
          const seen = windows(model, limit, arrivals);
          const ours = seen.filter((a) => a.ours);
          const answered = ours.filter((a) => a.admitted);
          if (answered.length === 0) return;
          const x = answered[pickX % answered.length]!;
          const now = x.at + x.rtt;
          // What the router hands on: the reset less half the round trip, with the round trip.
          const boundsOf = (a: (typeof seen)[number]) =>
            answerBounds(a.at + a.rtt, Math.max(0, a.end - a.at - a.rtt / 2), a.rtt)!;
          // Any of ours answered by now as its window's first (the controller keeps the last).
          const firsts = answered.filter((a) => a.count === 1 && a.at + a.rtt <= now && a.at <= x.at);
          if (firsts.length === 0) return;
          const first = firsts[pickFirst % firsts.length]!;
          const sent = ours.filter((a) => a.at <= now).map((a) => a.at);
          const end = zeroPauseEnd({
            now,
            boundEnd: Number.POSITIVE_INFINITY,
            limit,
            windowMs: W,
            share: 1,
            counted: x.count,
            firstAt: first.at,
            sameWindow: sameWindowEnd(boundsOf(first), boundsOf(x), W),
            firstToAnswered: ours.filter((a) => a.at >= first.at && a.at <= x.at).length,
            limitthLast: sent.length >= limit ? sent[sent.length - limit] : undefined,
          });
          if (end !== Number.POSITIVE_INFINITY)
            assert.ok(end >= x.end, `ends at ${end}, the window at ${x.end}`);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
