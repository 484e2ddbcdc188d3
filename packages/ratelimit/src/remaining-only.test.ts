import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '@rxgate/core';
import fc from 'fast-check';
import { LineSums } from './line-sums.js';
import {
  bucketCreep,
  countOrder,
  drainingSays,
  fixedWindowSays,
  flatBeyondDoubt,
  lineFit,
  orderedFit,
  ownRunMs,
  ownRunStands,
  RemainingOnlyRate,
  risenDrain,
  throttleCeiling,
} from './remaining-only.js';
import { logNormalRoundTrips } from './test-support/round-trips.js';

// Answers at `sendRate` sent, from a vendor written here: a bucket of 20 refilled at
// `bucketRate`, or a fixed window of 20 a second. Then one throttle. With `late`, one answer in
// ten comes back out of order: it says what was left `late` requests before.
function feed(kind: 'bucket' | 'window', bucketRate: number, sendRate: number, late = 0): RemainingOnlyRate {
  const r = new RemainingOnlyRate(1);
  let tokens = 20;
  let sent = 0;
  const said: number[] = [];
  const every = 1000 / sendRate;
  for (let t = 0; t <= 3000; t += every) {
    sent++;
    let remaining: number;
    if (kind === 'bucket') {
      tokens = Math.min(20, tokens + (bucketRate * every) / 1000) - 1;
      remaining = Math.max(0, Math.floor(tokens));
    } else remaining = 20 - (sent - Math.floor(t / 1000) * sendRate);
    said.push(remaining);
    const stale = late > 0 && sent % 10 === 0 && sent > late ? said[sent - 1 - late]! : remaining;
    r.answer(t, stale, 20, sent, sent, sendRate, Number.NEGATIVE_INFINITY);
  }
  r.throttled(3000, sendRate, Number.NEGATIVE_INFINITY);
  return r;
}

describe('RemainingOnlyRate: what a throttle says of the vendor rate', () => {
  const table: [string, 'bucket' | 'window', number, number, number, number][] = [
    // kind, the bucket's rate, what we sent, answers late by, the upper bound expected (within 5 %)
    ['a bucket drained at 25/s refills at 20/s: its rate, read from what it freed', 'bucket', 20, 25, 0, 20],
    [
      // Before: 25 (a late answer said Remaining back up by 6, and that was taken for a reset).
      'the same, one answer in ten back 30 requests late: still its rate',
      'bucket',
      20,
      25,
      30,
      20,
    ],
    ['a fixed window whose Remaining comes back each second: the rate in force', 'window', 0, 25, 0, 25],
    ['the same, one answer in ten back 30 requests late: still the rate in force', 'window', 0, 25, 30, 25],
  ];
  for (const [name, kind, bucketRate, send, late, upper] of table)
    it(name, () => {
      const r = feed(kind, bucketRate, send, late);
      assert.ok(Math.abs(r.upper - upper) / upper < 0.05, `upper ${r.upper}`);
      assert.ok(r.rate! <= r.upper * RemainingOnlyRate.upperShare + 1e-9, `rate ${r.rate}`);
    });
});

describe('RemainingOnlyRate: a fixed window read from its resets', () => {
  it('Remaining back up to the limit every second, at 10/s sent: the window is 1 s and the rate 99 % of 20/s, before any throttle', () => {
    const r = new RemainingOnlyRate(1, 0.99);
    let sent = 0;
    for (let t = 0; t <= 5000; t += 100) {
      sent++;
      // A window of 20 a second: what this second's requests left (this one counted).
      const remaining = 20 - (Math.floor((t % 1000) / 100) + 1);
      r.answer(t, remaining, 20, sent, sent, r.rate ?? 10, Number.NEGATIVE_INFINITY);
    }
    assert.equal(r.windowMs, 1000);
    assert.ok(Math.abs(r.rate! - 19.8) < 1e-9, `rate ${r.rate}`);
  });

  it('resets whose intervals disagree say no window', () => {
    const r = new RemainingOnlyRate(1, 0.99);
    const resets = [0, 1000, 1600, 3100, 3400];
    let sent = 0;
    for (let t = 0; t <= 3500; t += 50) {
      sent++;
      const last = resets.filter((x) => x <= t).at(-1)!;
      r.answer(
        t,
        Math.max(0, 19 - Math.floor((t - last) / 50)),
        20,
        sent,
        sent,
        10,
        Number.NEGATIVE_INFINITY,
      );
    }
    assert.equal(r.windowMs, undefined);
  });
});

// A fixed window's count (written here, not the limiter's): each request counts in the window
// of `windowMs` its time falls in, from 0 again when that window changes.
function fixedWindowCount(): (t: number, windowMs: number) => number {
  let window = Number.NaN;
  let count = 0;
  return (t, windowMs) => {
    const w = Math.floor(t / windowMs);
    if (w !== window) {
      window = w;
      count = 0;
    }
    return ++count;
  };
}

// A fixed window of `limit` per `windowMs`, sent to at `share` of its rate; each answer comes back
// after a round trip drawn from a seeded log-normal (p50 120 ms, p99 600 ms, as the zoo's slow
// vendor), so answers of the old window arrive after answers of the new one.
function shuffled(limit: number, windowMs: number, share: number, seconds: number): RemainingOnlyRate {
  const r = new RemainingOnlyRate(0.1, 0.99);
  let seed = 7;
  const random = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return (seed + 0.5) / 2 ** 31;
  };
  const gauss = (): number => Math.sqrt(-2 * Math.log(random())) * Math.cos(2 * Math.PI * random());
  const every = windowMs / (share * limit);
  const answers: { at: number; remaining: number; sent: number }[] = [];
  const count = fixedWindowCount();
  let sent = 0;
  for (let t = 0; t < seconds * 1000; t += every) {
    sent++;
    const remaining = limit - count(t, windowMs);
    const rtt = 120 * Math.exp(0.69 * gauss());
    answers.push({ at: t + rtt, remaining, sent });
  }
  answers.sort((a, b) => a.at - b.at);
  for (const a of answers)
    r.answer(a.at, a.remaining, limit, a.sent, a.sent, (share * limit * 1000) / windowMs, -Infinity);
  return r;
}

describe('RemainingOnlyRate: a fixed window read through answers out of order', () => {
  const table: [string, number, number, number, number][] = [
    // name, limit, window (ms), share of its rate sent, seconds of answers
    ['20 a second (the zoo), at half its rate', 20, 1000, 0.5, 8],
    ['7 a second, at 80 % of it', 7, 1000, 0.8, 20],
    ['100 per 10 s, at half its rate', 100, 10_000, 0.5, 60],
    ['50 per 2 s, at 90 % of it', 50, 2000, 0.9, 16],
  ];
  for (const [name, limit, windowMs, share, seconds] of table)
    it(`${name}: the window, and 99 % of its rate, within ${seconds} s`, () => {
      const r = shuffled(limit, windowMs, share, seconds);
      assert.equal(r.windowMs, windowMs);
      assert.ok(Math.abs(r.rate! - (0.99 * limit * 1000) / windowMs) < 1e-9, `rate ${r.rate}`);
    });
});

// A fixed window of `limit` per `windowMs` sent to evenly at `share` of its rate, each answer back
// after a round trip of p50 300 ms and p99 1.5 s: the answers as they come back, with what we had
// admitted and what the vendor had taken of ours by then, and when each request was sent (where
// its round trip is under `unsaidOverMs`: the limiter's admission log may not reach back to the
// slowest). The vendor counts a request `wayThere` of its round trip after it was sent.
function sentOrderSaid(
  limit: number,
  windowMs: number,
  share: number,
  seconds: number,
  seed: number,
  options: { readonly wayThere?: number; readonly unsaidOverMs?: number } = {},
): RemainingOnlyRate {
  const { wayThere = 0, unsaidOverMs = Number.POSITIVE_INFINITY } = options;
  const r = new RemainingOnlyRate(0.1, 0.99);
  const roundTrip = logNormalRoundTrips(seed, 300, 1500);
  const count = fixedWindowCount();
  const every = windowMs / (share * limit);
  const sends: { at: number; upTo: number; rtt: number; remaining: number }[] = [];
  for (let t = 0, n = 1; t < seconds * 1000; t += every, n++)
    sends.push({ at: t, upTo: n, rtt: roundTrip(), remaining: 0 });
  const counted = (x: (typeof sends)[number]) => x.at + wayThere * x.rtt;
  for (const x of [...sends].sort((a, b) => counted(a) - counted(b)))
    x.remaining = limit - count(counted(x), windowMs);
  let admitted = 0;
  let back = 0;
  const pace = (share * limit * 1000) / windowMs;
  for (const a of [...sends].sort((x, y) => x.at + x.rtt - (y.at + y.rtt))) {
    const now = a.at + a.rtt;
    while (admitted < sends.length && sends[admitted]!.at <= now) admitted++;
    back++;
    const sent = a.rtt < unsaidOverMs ? { at: a.at, upTo: a.upTo } : undefined;
    r.answer(now, a.remaining, limit, admitted, back, pace, Number.NEGATIVE_INFINITY, sent);
  }
  return r;
}

describe('RemainingOnlyRate: resets read in the order the requests were sent', () => {
  it("property: a fixed window (10-60 a window of 1-5 s, sent to at 50-95 % of its rate, counting each request as it leaves or half way), answers back out of order (p50 300 ms, p99 1.5 s) with their send times said (or not, for the slowest): within twelve windows (30 s at least) the window read is the vendor's", () => {
    // Read as they came back, an answer sent before a reset and back after it read as a reset of
    // its own, up to a round trip late: 566 of 1,440 grid runs of these vendors (286 counting
    // half way) read no window or a wrong one (20 a second as 500 ms, 60 as 250 ms). Answers
    // that do not say their send (the slowest, where the admission log no longer reaches back)
    // read with those that do, on two clocks: 202 of 1,440 with every answer over 800 ms unsaid
    // (20 per 2 s read as 1 s). None now.
    fc.assert(
      fc.property(
        fc.constantFrom(10, 20, 40, 60),
        fc.constantFrom(1000, 2000, 5000),
        fc.double({ min: 0.5, max: 0.95, noNaN: true }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.constantFrom(0, 0.5),
        fc.constantFrom(Number.POSITIVE_INFINITY, 800),
        (limit, windowMs, share, seed, wayThere, unsaidOverMs) => {
          const seconds = Math.max(30, (12 * windowMs) / 1000);
          const r = sentOrderSaid(limit, windowMs, share, seconds, seed, { wayThere, unsaidOverMs });
          assert.equal(r.windowMs, windowMs);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('a reset is timed half way between the sends of the answers read either side of it: 10 a second at 95 %, seed 18, is read as 1 s within 20 s (timed at the later send, a reset well after the last answer read fell out of phase, and 10 per 500 ms was read)', () => {
    assert.equal(sentOrderSaid(10, 1000, 0.95, 20, 18).windowMs, 1000);
  });

  it("a bucket's Remaining back after each pause (6 s apart, over a second of silence before each): no window is read from those resets (read across a gap of half a window or more, a reset says nothing of its phase; they read as 20 per 3 s)", () => {
    const r = new RemainingOnlyRate(0.1, 0.99);
    let admitted = 0;
    for (let cycle = 0; cycle < 8; cycle++) {
      const from = cycle * 6000;
      // 20 answers at 20/s, Remaining falling from 19 to 0, then 1.3 s of silence (a pause) and
      // the rest of the 6 s at a slow pace with the bucket full again.
      for (let k = 0; k < 20; k++) {
        const at = from + k * 50;
        admitted++;
        r.answer(at + 150, 19 - k, 20, admitted, admitted, 20, Number.NEGATIVE_INFINITY, {
          at,
          upTo: admitted,
        });
      }
    }
    assert.equal(r.windowMs, undefined);
  });
});

describe('RemainingOnlyRate: a fixed window of 2 s is not read as a sliding one of 1 s', () => {
  // Its count since its start averages half its window: a second of answers that agree must
  // not take it for a 1 s log (paced at twice its rate).
  const table: [number, number][] = [
    // limit, share of its rate sent
    [40, 0.3],
    [40, 0.5],
    [40, 0.9],
    [100, 0.3],
    [100, 0.5],
    [100, 0.9],
  ];
  for (const [limit, share] of table)
    it(`${limit} per 2 s at ${share * 100} % of it: never 1 s, over 2 to 16 s`, () => {
      for (let s = 2; s <= 16; s += 0.5)
        assert.notEqual(shuffled(limit, 2000, share, s).windowMs, 1000, `${s} s`);
    });
});

describe('ownRunMs: how long answers must read one window from our sends', () => {
  const table: [string, number, number, number, number, number][] = [
    // name, window read (ms), the most an answer was off, the least count, limit, expected (ms)
    ['a 1 s log of 50 at 28/s, answers off by 2 at most: 1 s', 1000, 2, 27, 50, 1000],
    ['off by a quarter of the count: 1 s', 1000, 7, 28, 50, 1000],
    ['off by more: 2 s', 1000, 7.5, 28, 50, 2000],
    ['small counts, off by 3: 1 s', 500, 3, 7, 20, 1000],
    ['a fixed 1 s window read as 500 ms (counts 0 to 20 against 10): 2 s', 500, 10, 0, 20, 2000],
    ['a bucket of 100 read as a 500 ms log at 6 counted (200/s, at 12/s sent): 2 s', 500, 2.9, 6, 100, 2000],
    ['a third of the limit counted: 1 s', 1000, 2, 17, 50, 1000],
    ['a window of 10 s: the window itself', 10_000, 2, 50, 100, 10_000],
    ['a window of 10 s, answers far off: the window itself', 10_000, 40, 50, 100, 10_000],
  ];
  for (const [name, w, off, counted, limit, expected] of table)
    it(name, () => assert.equal(ownRunMs(w, off, counted, limit), expected));
});

describe('ownRunStands: whether answers reading one window from our sends stand', () => {
  const table: [string, number, number, number, boolean][] = [
    // name, answers in a row, ms since the first, ownRunMs, expected
    ['12 answers over ownRunMs: stands', 12, 1000, 1000, true],
    ['12 answers, too soon: not yet', 12, 900, 1000, false],
    ['8 answers over 4 times ownRunMs (few answers leave anything): stands', 8, 4000, 1000, true],
    ['8 answers over less than 4 times ownRunMs: not yet', 8, 3999, 1000, false],
    ['7 answers, however long: not yet', 7, 60_000, 1000, false],
    ['8 answers over 4 times a 2 s run: stands', 8, 8000, 2000, true],
  ];
  for (const [name, answers, since, runMs, expected] of table)
    it(name, () => assert.equal(ownRunStands(answers, since, runMs), expected));
});

describe("bucketCreep: a drain's bound on a bucket while the bucket is then seen full", () => {
  const table: [string, number, number, number, number][] = [
    // name, bound, rate in force at the throttle, ms full, expected
    ['a second full: up 1 %', 18, 25, 1000, 18.18],
    ['10 s full: up 10 %', 18, 25, 10_000, 19.8],
    ['never above the rate that was throttled', 18, 19, 10_000, 19],
    ['not seen full before (NaN): no change', 18, 25, Number.NaN, 18],
    ['no time: no change', 18, 25, 0, 18],
  ];
  for (const [name, bound, at, ms, expected] of table)
    it(name, () =>
      assert.ok(Math.abs(bucketCreep(bound, at, ms) - expected) < 1e-9, `${bucketCreep(bound, at, ms)}`),
    );
});

describe('drainingSays: Remaining over a run of answers says a bucket draining', () => {
  const table: [string, number[], number, boolean][] = [
    ['falling answer by answer', [10, 9, 9, 8, 7, 7, 6, 5], 20, true],
    ['three answers falling by 2', [10, 9, 8], 20, true],
    ['falling by less than 2', [10, 10, 9, 10, 9, 9], 20, false],
    ['two answers or fewer say nothing', [10, 5], 20, false],
    [
      'back up by more than a quarter of the limit, and staying up: a reset',
      [10, 8, 6, 4, 19, 18, 17, 16],
      20,
      false,
    ],
    ['one answer back up (come back out of order): still a drain', [10, 9, 8, 7, 15, 6, 5, 4, 3], 20, true],
    ['two answers in a row back up: a reset', [10, 9, 8, 7, 15, 14, 6, 5, 4], 20, false],
    ['back up in the last answer, where nothing follows: a reset', [10, 9, 8, 7, 6, 5, 12], 20, false],
    // A review's fixed window of 5/s, read as a drain of 2.8/s by the least of every three.
    ['a fixed window of 5: back up to 4, 3, 2 after 0 is a reset', [4, 3, 2, 1, 0, 4, 3, 2, 1, 0], 5, false],
    [
      'a fixed window of 7 whose last window ended at 1, a late answer among the new one',
      [6, 5, 4, 3, 2, 1, 6, 0, 5, 4, 3, 2, 1, 0],
      7,
      false,
    ],
  ];
  for (const [name, remaining, limit, want] of table)
    it(name, () => assert.equal(drainingSays(remaining, limit), want));
  it('property: a falling Remaining with answers come back out of order, one at a time (each an earlier one, three or more apart), is still a drain', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 8, maxLength: 60 }),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 10 }),
        (drops, stale) => {
          const falling: number[] = [];
          let left = 200;
          for (const d of drops) {
            left -= d;
            falling.push(left);
          }
          fc.pre(falling[0]! - falling[falling.length - 1]! >= 6);
          const seq = [...falling];
          // Answers three or more apart replaced by earlier ones (come back late).
          const used: number[] = [];
          for (const [p, back] of stale) {
            const at = 3 + (p % (seq.length - 6));
            if (used.some((u) => Math.abs(u - at) < 3)) continue;
            used.push(at);
            seq[at] = falling[at - 1 - (back % at)]!;
          }
          assert.equal(drainingSays(seq, 20), true, JSON.stringify(seq));
        },
      ),
    );
  });
});

describe('RemainingOnlyRate: a bucket whose drain was read low', () => {
  it('Remaining fell answer by answer at 20.3/s sent (read as 16.7/s freed), a throttle, then the bucket full for 30 s at the rate in force: back to 98.5 % of 20.3/s, not held at 16.5/s', () => {
    const r = new RemainingOnlyRate(0.1, 0.99);
    let sent = 0;
    for (let t = 0; t < 2000; t += 1000 / 20.3) {
      sent++;
      r.answer(t, Math.max(1, 10 - Math.floor(t / 250)), 20, sent, sent, 20.3, -Infinity);
    }
    r.throttled(2000, 20.3, -Infinity);
    assert.ok(Math.abs(r.upper - 16.7) < 0.2, `upper ${r.upper}`);
    // A bucket of 20 at 20/s sent to at the rate in force (under 20/s): full, 19 left after each request.
    let t = 3000;
    while (t < 33_000) {
      sent++;
      r.answer(t, 19, 20, sent, sent, r.rate!, 3000);
      t += 1000 / r.rate!;
    }
    assert.ok(Math.abs(r.rate! - 20.3 * RemainingOnlyRate.upperShare) < 1e-6, `rate ${r.rate}`);
  });
});

describe("risenDrain: a drain's bound the vendor's level outruns", () => {
  const table: [string, number, number, number, number, number | undefined][] = [
    // name, slope, its standard error, answers, ms, expected (bound 7.1, rate in force then 10.6)
    ['9.9/s beyond doubt: raised to the slope less three errors', 9.9, 0.2, 40, 5000, 9.3],
    [
      'not beyond doubt (three errors take it under 5 % over the bound): no change',
      9.9,
      0.9,
      40,
      5000,
      undefined,
    ],
    ['within 5 % of the bound: no change', 7.4, 0, 40, 5000, undefined],
    ['over the rate in force at the throttle: raised to that rate only', 14, 0.1, 40, 5000, 10.6],
    ['under RISE_MS of answers: nothing yet', 9.9, 0.2, 40, 2900, undefined],
    ['under ten answers: nothing yet', 9.9, 0.2, 9, 5000, undefined],
    ['a level falling: no change', -3, 0.1, 40, 5000, undefined],
  ];
  for (const [name, slope, slopeError, count, spanMs, expected] of table)
    it(name, () => {
      const got = risenDrain({ slope, slopeError, count, spanMs, drainUpper: 7.1, drainAt: 10.6 });
      if (expected === undefined) assert.equal(got, undefined);
      else assert.ok(got !== undefined && Math.abs(got - expected) < 1e-9, `${got}`);
    });
  it('a span asked twice as long (a raise a throttle refused): a 5 s line of 6 s asked says nothing yet', () =>
    assert.equal(
      risenDrain({
        slope: 9.9,
        slopeError: 0.2,
        count: 40,
        spanMs: 5000,
        drainUpper: 7.1,
        drainAt: 10.6,
        minSpanMs: 6000,
      }),
      undefined,
    ));
  it('a drain raised to the rate in force or under it is no raise', () =>
    assert.equal(
      risenDrain({ slope: 9, slopeError: 0, count: 40, spanMs: 5000, drainUpper: 7.1, drainAt: 7.1 }),
      undefined,
    ));
});

describe("RemainingOnlyRate: a drain's bound the vendor's level outruns", () => {
  // A vendor of 100 whose Remaining fell answer by answer at 20.3/s sent (a drain of about
  // 16.7/s read at a throttle), then, from the pause's end on, answers at the rate in force while
  // the vendor frees `frees` a second: Remaining climbs by what it frees over what we send (a
  // bucket under its rate; or a window giving back what it took faster before, as a sliding
  // counter's last window).
  // `earlierMs`: first a throttle (at 40/s) paused that long, its quiet second, and 10 s of
  // answers at 20.3/s with 10 left; all the rest that much later.
  // `thenFrees`: then 2 s of answers at the rate in force while the vendor frees that much a
  // second (Remaining falling), and a throttle.
  function after(
    frees: number,
    pauseMs: number,
    untilMs: number,
    earlierMs = 0,
    thenFrees?: number,
  ): RemainingOnlyRate {
    const r = new RemainingOnlyRate(0.1, 0.99);
    let sent = 0;
    let from = Number.NEGATIVE_INFINITY;
    const start = earlierMs === 0 ? 0 : earlierMs + 11_000;
    if (earlierMs > 0) {
      r.throttled(0, 40, -Infinity);
      from = earlierMs + 1000;
      for (let t = from; t < start; t += 1000 / 20.3) {
        sent++;
        r.answer(t, 10, 100, sent, sent, 20.3, from);
      }
    }
    for (let t = start; t < start + 2000; t += 1000 / 20.3) {
      sent++;
      r.answer(t, Math.max(1, 10 - Math.floor((t - start) / 250)), 100, sent, sent, 20.3, from);
    }
    r.throttled(start + 2000, 20.3, from);
    const quietUntil = start + 2000 + pauseMs + 1000;
    untilMs += start;
    let left = 0;
    let t = quietUntil - 1000;
    // Answers at the rate in force until `until`, the vendor freeing `perSecond` (0 to 98 left).
    const atPace = (perSecond: number, until: number): void => {
      while (t < until) {
        const rate = r.rate!;
        t += 1000 / rate;
        left = Math.min(98, Math.max(0, left + perSecond / rate - 1));
        sent++;
        r.answer(t, Math.floor(left), 100, sent, sent, rate, quietUntil);
      }
    };
    atPace(frees, untilMs);
    if (thenFrees !== undefined) {
      atPace(thenFrees, t + 2000);
      r.throttled(t, r.rate!, quietUntil);
    }
    return r;
  }

  it('read low at 16.7/s, the vendor then freeing 18/s: the bound rises (to 17.5/s or more, never over 20.3/s)', () => {
    const r = after(18, 1000, 15_000);
    assert.ok(Math.abs(after(18, 1000, 3000).upper - 16.7) < 0.2, 'the drain read');
    assert.ok(r.upper >= 16.7 * 1.05 && r.upper <= 20.3, `upper ${r.upper}`);
  });

  it('throttled within 10 s of the raise, Remaining then read as a drain of 12/s: back to the bound before the raise, not under it', () => {
    assert.ok(after(18, 1000, 13_000).upper >= 16.7 * 1.05, 'raised by 13 s');
    const r = after(18, 1000, 13_000, 0, 12);
    assert.ok(Math.abs(r.upper - 16.7) < 0.2, `upper ${r.upper}`);
  });

  it('a bucket freeing what the drain said (16.7/s): the bound stays', () =>
    assert.ok(Math.abs(after(16.7, 1000, 15_000).upper - 16.7) < 0.2));

  it('after a pause of 5 s, not within 5 s of its quiet second (a window longer than the pause still gives back what it took before it)', () => {
    assert.ok(Math.abs(after(18, 5000, 13_000).upper - 16.7) < 0.2, 'within the pause length');
    assert.ok(after(18, 5000, 20_000).upper >= 16.7 * 1.05, 'after it');
  });

  it('a pause of 1 s, 30 s after one of 40 s: not within 40 s of its quiet second (the longest pause of the last 5 minutes)', () => {
    // The drain read here: about 17.3/s (the vendor then frees 19/s).
    const read = after(19, 1000, 3000, 40_000).upper;
    assert.ok(Math.abs(read - 17.3) < 0.2, `the drain read: ${read}`);
    assert.equal(after(19, 1000, 40_000, 40_000).upper, read, 'within the longest pause');
    assert.ok(after(19, 1000, 60_000, 40_000).upper >= read * 1.05, 'after it');
  });
});

describe('RemainingOnlyRate.freesNothing: whether the vendor frees anything now', () => {
  // 3 s of answers at 16/s from a vendor of 100: a fixed window spent from 60 (its level, what
  // it accepted plus what it has left, stands), or a sliding log of 100 per 10 s at our pace
  // (what left its log 10 s ago, 16/s, comes back: Remaining stays).
  function fed(kind: 'fixed' | 'log'): RemainingOnlyRate {
    const r = new RemainingOnlyRate(0.1, 0.99);
    let sent = 0;
    for (let t = 0; t <= 3000; t += 1000 / 16) {
      sent++;
      // Each answered 50 ms after it left, nothing admitted after it meanwhile.
      r.answer(t, kind === 'fixed' ? Math.max(0, 60 - sent) : 10, 100, sent, sent, 16, -Infinity, {
        at: t - 50,
        upTo: sent,
      });
    }
    return r;
  }
  it('a fixed window before its reset: nothing', () =>
    assert.equal(fed('fixed').freesNothing(-Infinity, 16), true));
  it('a sliding log at our pace: frees at it', () =>
    assert.equal(fed('log').freesNothing(-Infinity, 16), false));
  it('answers from before `from` (a pause): not read', () =>
    assert.equal(fed('fixed').freesNothing(2500, 16), false));
});

describe('RemainingOnlyRate: a window read from our sends against a drain', () => {
  // A drain of about 16.7/s read at a throttle, then answers that fit a sliding window of 20 per
  // 500 ms (40/s) at 30/s sent: what we sent over the last 500 ms is what the vendor counts.
  function after(withDrain: boolean): RemainingOnlyRate {
    const r = new RemainingOnlyRate(0.1, 0.99);
    let sent = 0;
    if (withDrain) {
      for (let t = 0; t < 2000; t += 1000 / 20.3) {
        sent++;
        r.answer(t, Math.max(1, 10 - Math.floor(t / 250)), 20, sent, sent, 20.3, -Infinity);
      }
      r.throttled(2000, 20.3, -Infinity);
    }
    const log: number[] = [];
    for (let t = 3000; t < 13_000; t += 1000 / 30) {
      sent++;
      log.push(t);
      while (log[0]! <= t - 500) log.shift();
      r.answer(t, 20 - log.length, 20, sent, sent, 30, 3000);
    }
    return r;
  }

  it('without a drain, the window of 500 ms is read', () => assert.equal(after(false).windowMs, 500));

  it('a window whose rate is over 1.5 times what a bucket was seen to free is not read (a 7/s bucket read as 7 per 500 ms)', () =>
    assert.equal(after(true).windowMs, undefined));
});

describe('fixedWindowSays: resets that say a fixed window, against a sliding one of w read from our sends', () => {
  type Resets = { at: number; gap: number }[];
  const table: [string, Resets, number, number, boolean][] = [
    // name, resets (when, time since the answer before), now, w, a fixed window
    ['no reset', [], 10_000, 1000, false],
    ['one reset just now, between answers 50 ms apart', [{ at: 9000, gap: 50 }], 10_000, 1000, true],
    ['one reset long ago', [{ at: 5000, gap: 50 }], 10_000, 1000, false],
    [
      'two resets a window apart: a sliding counter',
      [
        { at: 8000, gap: 50 },
        { at: 9000, gap: 50 },
      ],
      10_000,
      1000,
      false,
    ],
    [
      'two resets two windows apart',
      [
        { at: 7000, gap: 50 },
        { at: 9000, gap: 50 },
      ],
      10_000,
      1000,
      true,
    ],
    [
      'a reset across a silence of the window (after a pause)',
      [{ at: 9000, gap: 1050 }],
      10_000,
      1000,
      false,
    ],
    ['after a pause of 1 s, against a window of 2 s read', [{ at: 9000, gap: 1050 }], 10_000, 2000, true],
    [
      'resets after pauses 5 s apart, a steady one a window before them',
      [
        { at: 3900, gap: 50 },
        { at: 4000, gap: 1200 },
        { at: 9000, gap: 1100 },
      ],
      10_000,
      1000,
      false,
    ],
    [
      'the last steady reset recent, the one before 3 s earlier, a pause between',
      [
        { at: 6000, gap: 50 },
        { at: 7500, gap: 1500 },
        { at: 9000, gap: 40 },
      ],
      10_000,
      1000,
      true,
    ],
  ];
  for (const [name, resets, now, w, expected] of table)
    it(name, () => {
      assert.equal(fixedWindowSays(resets, now, w), expected);
    });
});

describe('fixedWindowSays: a reset across a silence of the window or more says nothing', () => {
  it('adding such resets anywhere leaves the answer as it was', () => {
    const reset = (gap: fc.Arbitrary<number>) => fc.record({ at: fc.integer({ min: 0, max: 20_000 }), gap });
    fc.assert(
      fc.property(
        fc.integer({ min: 250, max: 10_000 }),
        fc.array(reset(fc.integer({ min: 0, max: 249 })), { maxLength: 6 }),
        fc.array(fc.integer({ min: 0, max: 20_000 }), { maxLength: 4 }),
        fc.integer({ min: 0, max: 30_000 }),
        (w, steady, silent, now) => {
          const sorted = (rs: { at: number; gap: number }[]) => [...rs].sort((a, b) => a.at - b.at);
          const withSilent = sorted([...steady, ...silent.map((at) => ({ at, gap: w }))]);
          return fixedWindowSays(sorted(steady), now, w) === fixedWindowSays(withSilent, now, w);
        },
      ),
    );
  });
});

describe('RemainingOnlyRate: a sliding window paused by throttles', () => {
  it('Remaining back after each pause is no fixed window reset: the 1 s window is read from our sends', () => {
    // A sliding log of 20 a second written here, at 16/s sent; throttled at 3 s and at 8 s,
    // each followed by a pause of 1 s (a Retry-After), so Remaining comes back after each.
    const r = new RemainingOnlyRate(1, 0.99);
    const sends: number[] = [];
    const throttles = [3000, 8000];
    let pausedTill = Number.NEGATIVE_INFINITY;
    for (let t = 0; t <= 13_000; t += 62.5) {
      const throttle = throttles.find((x) => t >= x && t < x + 62.5);
      if (throttle !== undefined) {
        r.throttled(t, 16, pausedTill + 1000);
        pausedTill = t + 1000;
        continue;
      }
      if (t < pausedTill) continue;
      sends.push(t);
      const remaining = 20 - sends.filter((x) => x > t - 1000).length;
      r.answer(t, remaining, 20, sends.length, sends.length, r.rate ?? 16, pausedTill + 1000);
    }
    assert.equal(r.windowMs, 1000);
  });
});

describe('RemainingOnlyRate: a throttle our own burst explains', () => {
  // A sliding log of 50 a second written here. The limiter sends a burst of 25 at t = 0 (a
  // limiter configured at half the quota), then 28/s, the rate in force; each answer comes back
  // `rttMs` after its request (which the vendor counts at once). The first refusal is the
  // throttle, read when its answer comes back.
  function burstInto(rttMs: number): RemainingOnlyRate {
    const r = new RemainingOnlyRate(1, 0.99);
    const sends: number[] = [];
    const answers: { at: number; remaining: number; refused: boolean }[] = [];
    let admitted = 0;
    let answered = 0;
    const answerUntil = (t: number): boolean => {
      while (answers.length > 0 && answers[0]!.at <= t) {
        const a = answers.shift()!;
        if (a.refused) {
          r.throttled(a.at, 28, Number.NEGATIVE_INFINITY, admitted - answered);
          return true;
        }
        answered++;
        r.answer(a.at, a.remaining, 50, admitted, answered, 28, Number.NEGATIVE_INFINITY);
      }
      return false;
    };
    const send = (t: number): void => {
      const inWindow = sends.filter((x) => x > t - 1000).length;
      admitted++;
      if (inWindow < 50) sends.push(t);
      answers.push({ at: t + rttMs, remaining: Math.max(0, 49 - inWindow), refused: inWindow >= 50 });
    };
    for (let i = 0; i < 25; i++) send(i / 10);
    for (let t = 3; t < 5000; t += 1000 / 28) {
      if (answerUntil(t)) return r;
      send(t);
    }
    throw new Error('never throttled');
  }

  const table: [string, number][] = [
    ['answers at once', 1],
    ['answers 150 ms later (a slow round trip: a few still out at the throttle)', 150],
  ];
  for (const [name, rttMs] of table)
    it(`a burst of 25 then 28/s into a 1 s log of 50, ${name}: 50 sent within the second, so the bound is 50/s, not the rate in force`, () => {
      const r = burstInto(rttMs);
      assert.ok(r.upper >= 49, `upper ${r.upper}`);
    });
  for (const [name, rttMs] of table)
    it(`the same, ${name}: the rate in force (28/s) stays, not halved`, () => {
      const r = burstInto(rttMs);
      assert.ok(r.rate! >= 27.5, `rate ${r.rate}`);
    });
});

describe('RemainingOnlyRate: a sliding window read from our sends, throttled at its own pace', () => {
  // A sliding log of 20 a second written here, answers at once: 16/s sent until its window is
  // read, then the pace read for 2 s, then one throttle at that pace (arrivals bunched up).
  function atPace(): { r: RemainingOnlyRate; t: number } {
    const r = new RemainingOnlyRate(1, 0.99);
    return { r, t: sendOn(r, [], 0, 6000) };
  }
  // Sends from `from` to `until` (16/s until a window is read, then its pace), each answered at
  // once; `sends` what the log holds already. The time of the next send.
  function sendOn(
    r: RemainingOnlyRate,
    sends: number[],
    from: number,
    until: number,
    quietUntil = Number.NEGATIVE_INFINITY,
  ): number {
    let t = from;
    while (t < until) {
      sends.push(t);
      const remaining = 20 - sends.filter((x) => x > t - 1000).length;
      r.answer(t, remaining, 20, sends.length, sends.length, r.rate ?? 16, quietUntil);
      t += 1000 / (r.windowMs === undefined ? 16 : r.rate!);
    }
    return t;
  }

  it('the window read is 1 s, at 99 % of 20/s', () => {
    const { r } = atPace();
    assert.equal(r.windowMs, 1000);
    assert.ok(Math.abs(r.rate! - 19.8) < 1e-9, `rate ${r.rate}`);
  });

  it('the window stands and its pace is kept (not dropped, the rate halved)', () => {
    const { r, t } = atPace();
    r.throttled(t, r.rate!, Number.NEGATIVE_INFINITY, 0);
    assert.equal(r.windowMs, 1000);
    assert.ok(r.rate! >= 19.5, `rate ${r.rate}`);
  });

  it('nor a second throttle at its pace in a row before that pace was steady (5 s since a pause): the window is dropped', () => {
    const { r, t } = atPace();
    // A pause ended 2 s before t, its quiet second 1 s before t.
    r.throttled(t, r.rate!, t - 1000, 0);
    assert.equal(r.windowMs, 1000);
    r.throttled(t + 2000, r.rate!, t - 1000, 0);
    assert.equal(r.windowMs, undefined);
  });

  it('two throttles at its pace within a minute, each soon after a pause (a path that holds requests up, throttling every few seconds), take a point off the pace it is read at again', () => {
    const { r, t } = atPace();
    // A pause ended 2 s before t, its quiet second 1 s before; the first throttle's pause ends
    // at t + 1000, its quiet second at t + 2000, and the second throttle comes a second later.
    r.throttled(t, r.rate!, t - 1000, 0);
    r.throttled(t + 3000, r.rate!, t + 2000, 0);
    // Not steady twice in a row: dropped, then read again from our sends after the pause.
    assert.equal(r.windowMs, undefined);
    sendOn(r, [], t + 4000, t + 12_000, t + 5000);
    assert.equal(r.windowMs, 1000);
    // 98 % of 20/s (was 99 %: such throttles never counted, the pace came back to 19.8/s).
    assert.ok(Math.abs(r.rate! - 19.6) < 1e-9, `rate ${r.rate}`);
  });

  it('throttles at its pace each after a steady stretch leave it standing', () => {
    const { r, t } = atPace();
    r.throttled(t, r.rate!, t - 1000, 0);
    r.throttled(t + 6000, r.rate!, t - 1000, 0);
    r.throttled(t + 12_000, r.rate!, t - 1000, 0);
    assert.equal(r.windowMs, 1000);
  });

  it('but not a throttle within a second of a pause: a pause only frees room in a sliding window, so the window read was wrong', () => {
    const { r, t } = atPace();
    // The last pause ended 400 ms ago (the second after it runs to t + 600).
    r.throttled(t, r.rate!, t + 600, 0);
    assert.equal(r.windowMs, undefined);
    assert.ok(r.rate! < 19.8, `rate ${r.rate}`);
  });
});

describe("throttleCeiling: a throttle's bound, taken for the round rate just under it", () => {
  const table: [string, number, number, number][] = [
    // name, the least rate throttled, the vendor's limit, the ceiling expected
    ['20 a window throttled at 21/s: 99 % of 20/s (1 s), not 98.5 % of 21/s', 21, 20, 19.8],
    ['20 a window throttled at 20.4/s: 99 % of 20/s', 20.4, 20, 19.8],
    ['throttled at 20.05/s: 98.5 % of it is less than 99 % of 20/s, and stays', 20.05, 20, 20.05 * 0.985],
    [
      'throttled at 22/s: no round rate within 5 % under it (20/s is 9 % under), 98.5 % of it',
      22,
      20,
      22 * 0.985,
    ],
    ['20 a window throttled at 40.5/s: 20 per 500 ms, 99 % of 40/s', 40.5, 20, 39.6],
    ['100 a window throttled at 10.3/s: 100 per 10 s, 9.9/s', 10.3, 100, 9.9],
    ['7 a window throttled at 7.2/s: 6.93/s', 7.2, 7, 6.93],
    // The cost: a bucket of 25 refilled at 5.2/s, throttled just above it, is taken for 25 per
    // 5 s, 5/s, and paced at 4.95/s, 95 % of its rate (98.5 % of the bound would be 5.17/s).
    ['25 refilled at 5.2/s, throttled at 5.25/s: 25 per 5 s, 4.95/s', 5.25, 25, 4.95],
    [
      '30 a window throttled at 20.4/s: 30 per 1.5 s is no window vendors configure, 98.5 % of it',
      20.4,
      30,
      20.4 * 0.985,
    ],
  ];
  for (const [name, upper, limit, expected] of table)
    it(name, () =>
      assert.ok(
        Math.abs(throttleCeiling(upper, limit, 0.99, 0.985) - expected) < 1e-9,
        `${throttleCeiling(upper, limit, 0.99, 0.985)}`,
      ),
    );

  it('property: never above 98.5 % of the bound, never under 94 % of it', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 1e4, noNaN: true }),
        fc.integer({ min: 1, max: 10_000 }),
        (upper, limit) => {
          const c = throttleCeiling(upper, limit, 0.99, 0.985);
          return c <= upper * 0.985 + 1e-9 && c >= upper * 0.95 * 0.99 - 1e-9;
        },
      ),
    );
  });
});

describe('RemainingOnlyRate: a fixed window of 20 throttled just above 20/s', () => {
  it('paced at 99 % of 20/s after the throttle, not 98.5 % of the rate throttled (20.7/s, over the quota every window)', () => {
    // Answers every 1/21 s from a fixed window of 20 a second (Remaining counts the request
    // itself; the 21st of a second is refused), for 3 s: too few resets to read the window.
    const r = new RemainingOnlyRate(1);
    const every = 1000 / 21;
    let sent = 0;
    let refused = 0;
    for (let i = 0; i * every < 3000; i++) {
      const t = i * every;
      sent++;
      const inWindow = (i % 21) + 1;
      if (inWindow > 20) refused++;
      else r.answer(t, 20 - inWindow, 20, sent, sent - refused, 21, Number.NEGATIVE_INFINITY);
    }
    r.throttled(3000, 21, Number.NEGATIVE_INFINITY);
    assert.ok(r.rate !== undefined && r.rate <= 19.8 + 1e-9, `rate ${r.rate}`);
    assert.ok(r.rate >= 19.5, `rate ${r.rate}`);
  });
});

describe('RemainingOnlyRate: a window read that leaves room at every answer', () => {
  it('a fixed window of 20 per 2 s, read and paced at 9.9/s, then the vendor allows 20 per 1 s: the window read is dropped and the rate climbs (not held at 9.9/s for good)', () => {
    // A fixed window written here; answers come back at once; we send at the rate read.
    const r = new RemainingOnlyRate(1);
    const count = fixedWindowCount();
    let sent = 0;
    let windowMs = 2000;
    let t = 0;
    const send = (): void => {
      sent++;
      const remaining = Math.max(0, 20 - count(t, windowMs));
      r.answer(t, remaining, 20, sent, sent, r.rate ?? 12, Number.NEGATIVE_INFINITY);
      t += 1000 / (r.rate ?? 12);
    };
    while (t < 30_000) send();
    assert.equal(r.windowMs, 2000);
    assert.ok(Math.abs(r.rate! - 9.9) < 1e-9, `rate ${r.rate}`);
    windowMs = 1000;
    while (t < 60_000) send();
    assert.ok(r.rate! > 15, `rate ${r.rate}, window ${r.windowMs}`);
  });
});

// A 1 s sliding log of `limit`, or a bucket of `limit` refilled at `q` a second (`start` in it at
// `from`), written here: whether a request sent at `t` goes through, and what is left after it.
function testVendor(
  kind: 'log' | 'bucket',
  q: number,
  limit: number,
  start: number,
  from: number,
): (t: number) => { ok: boolean; remaining: number } {
  const log: number[] = [];
  let tokens = start;
  let last = from;
  return (t) => {
    if (kind === 'log') {
      while (log.length > 0 && log[0]! <= t - 1000) log.shift();
      const ok = log.length < limit;
      if (ok) log.push(t);
      return { ok, remaining: limit - log.length };
    }
    tokens = Math.min(limit, tokens + ((t - last) * q) / 1000);
    last = t;
    const ok = tokens >= 1;
    if (ok) tokens -= 1;
    return { ok, remaining: Math.floor(tokens) };
  };
}

describe("RemainingOnlyRate: a throttle's bound that Remaining says is stale", () => {
  // A vendor written here: a sliding log of 50 a second, or a bucket of 50 refilled at `q`/s;
  // answers come back at once; we send at the rate read; a refusal is a throttle and a second's
  // pause. A throttle at 20/s first, as after a start-up burst still in a 1 s log (the tests' own
  // vendor, seed 4: held at 19.7/s for good).
  function paced(kind: 'log' | 'bucket', q = 0) {
    const r = new RemainingOnlyRate(1);
    const send = testVendor(kind, q, 50, 50, 0);
    let sent = 0;
    let refused = 0;
    const throttles: number[] = [];
    const seen: number[] = [];
    // As the limiter says it: quiet until a second after the last pause ended.
    r.throttled(0, 20, Number.NEGATIVE_INFINITY);
    let pausedTill = 1000;
    for (let t = 1000; t < 61_000; t += 1000 / (r.rate ?? 20)) {
      sent++;
      const { ok, remaining } = send(t);
      if (ok) {
        r.answer(t, remaining, 50, sent, sent - refused, r.rate ?? 20, pausedTill + 1000);
        seen.push(remaining);
      } else {
        refused++;
        if (throttles.length === 0 || t - throttles.at(-1)! >= 1000) throttles.push(t);
        r.throttled(t, r.rate ?? 20, pausedTill + 1000);
        pausedTill = t + 1000;
        t = pausedTill;
      }
    }
    return { r, seen, throttles };
  }

  it("a 1 s log of 50 paced at 98.5 % of 20/s shows 30 left at every answer: the bound is lifted and the rate climbs to the log's", () => {
    const { r, seen, throttles } = paced('log');
    assert.ok(
      seen.slice(-100).every((x) => x < 10),
      `Remaining at the end ${seen.slice(-5)}`,
    );
    assert.ok(r.rate! > 45, `rate ${r.rate}`);
    assert.deepEqual(throttles, []);
  });

  it('a throttle within 10 s of the drop says the bound was not stale: it is back, and the next drop waits twice as long', () => {
    // Remaining 30 of 50 at every answer, each sent at the rate read.
    const r = new RemainingOnlyRate(1);
    r.throttled(0, 20, Number.NEGATIVE_INFINITY);
    let sent = 0;
    let t = 1000;
    const still = (until: number): number | undefined => {
      let dropped: number | undefined;
      for (; t < until; t += 1000 / (r.rate ?? 20)) {
        sent++;
        r.answer(t, 30, 50, sent, sent, r.rate ?? 20, 2000);
        if (dropped === undefined && r.upper === Number.POSITIVE_INFINITY) dropped = t;
      }
      return dropped;
    };
    const first = still(20_000);
    assert.ok(first !== undefined, 'dropped');
    r.throttled(t, r.rate!, 2000);
    assert.ok(r.upper <= 20, `bound ${r.upper}`);
    assert.ok(r.rate! <= 20, `rate ${r.rate}`);
    const from = t;
    const second = still(60_000);
    assert.ok(second !== undefined && second - from >= 10_000, `dropped again ${second! - from} ms after`);
  });

  // Paced at 19.7/s, a bucket of 19/s drains and one of 21/s fills: still only near 19.7/s. One
  // lifted (within a point or so of the pace, where 5 s of whole-number Remaining show no slope)
  // climbs, drains the bucket and is throttled once: that throttle reads the drain, which then
  // bounds the pace, and no throttle's bound is lifted under a drain's.
  for (const q of [19, 19.5, 19.7, 20, 20.5, 21])
    it(`a bucket of 50 refilled at ${q}/s: at most one throttle in a minute, and paced under the bound at the end`, () => {
      const { r, throttles } = paced('bucket', q);
      assert.ok(throttles.length <= 1, `throttled at ${throttles.map((t) => Math.round(t))}`);
      assert.ok(r.rate! <= 20 * RemainingOnlyRate.upperShare + 1e-9, `rate ${r.rate}`);
    });
});

describe("flatBeyondDoubt: Remaining's line flat enough to act on", () => {
  // Points every 100 ms over `spanMs` (seconds from the start), Remaining as `at(t)` gives it.
  const fitOf = (spanMs: number, at: (t: number) => number, every = 100): LineSums => {
    const fit = new LineSums();
    for (let t = 0; t <= spanMs; t += every) fit.add(t / 1000, at(t));
    return fit;
  };
  const cases: [string, LineSums, number, number, boolean][] = [
    ['30 left at every answer for 5 s, 0.3 a second allowed', fitOf(5000, () => 30), 5000, 0.3, true],
    ['the same over 2 s: a request over the span is 0.5 a second', fitOf(2000, () => 30), 2000, 0.3, false],
    ['falling 0.5 a second over 5 s', fitOf(5000, (t) => 30 - Math.floor(t / 2000)), 5000, 0.3, false],
    ['still, but 6 points over 5 s (too few)', fitOf(5000, () => 30, 1000), 5000, 0.3, false],
    [
      'falling 1 a second, 2 a second allowed (a probe at 40/s, 10 % over)',
      fitOf(5000, (t) => 30 - Math.floor(t / 1000)),
      5000,
      2,
      true,
    ],
  ];
  for (const [name, fit, spanMs, allowed, want] of cases)
    it(name, () => assert.equal(flatBeyondDoubt(fit, spanMs, allowed), want));
});

describe("RemainingOnlyRate: a drain's bound that a window holds, probed", () => {
  // A drain of about 16.7/s read at a throttle (Remaining falling answer by answer at 20.3/s
  // sent), then a minute of answers from a log or a bucket of `limit` (`start` left in the
  // bucket), each sent at the rate read; the vendor's refusals are throttles, each followed by a
  // second's pause. The loopback stall (README): a 1 s
  // log of 50 read as a bucket draining at 30.8/s, then held at 30.5/s with 18-19 of 50 left.
  function drainedThen(kind: 'log' | 'bucket', q = 0, limit = 50, start = 25) {
    const r = new RemainingOnlyRate(0.1, 0.99);
    let sent = 0;
    for (let t = 0; t < 2000; t += 1000 / 20.3) {
      sent++;
      r.answer(
        t,
        Math.max(1, Math.min(limit - 2, 10) - Math.floor(t / 250)),
        limit,
        sent,
        sent,
        20.3,
        -Infinity,
      );
    }
    r.throttled(2000, 20.3, -Infinity);
    const bound = r.upper;
    const send = testVendor(kind, q, limit, start, 3000);
    let refused = 0;
    let pausedTill = 3000;
    const throttles: number[] = [];
    const rates: { t: number; rate: number }[] = [];
    for (let t = 3000; t < 63_000; t += 1000 / r.rate!) {
      sent++;
      const { ok, remaining } = send(t);
      if (ok) r.answer(t, remaining, limit, sent, sent - refused, r.rate!, pausedTill + 1000);
      else {
        refused++;
        throttles.push(t);
        r.throttled(t, r.rate!, pausedTill + 1000);
        pausedTill = t + 1000;
        t = pausedTill;
      }
      rates.push({ t, rate: r.rate! });
    }
    return { r, bound, throttles, rates };
  }

  it("a 1 s log of 50 paced at 99 % of a drain read at 16.7/s (34 left at every answer): probed, the bound goes and the rate climbs to the log's within 30 s", () => {
    const { r, bound, throttles, rates } = drainedThen('log');
    assert.ok(Math.abs(bound - 16.7) < 0.2, `bound ${bound}`);
    const at30 = rates.find((x) => x.t >= 33_000)!.rate;
    assert.ok(at30 > 45, `rate 30 s on ${at30}`);
    assert.ok(r.rate! > 45 && r.rate! <= 50, `rate ${r.rate}`);
    assert.ok(throttles.length <= 1, `throttled at ${throttles.map(Math.round)}`);
  });

  // A bucket of the drain's rate or a little over it: Remaining falls all through each probe, a
  // probe drains at most half of what is left, so nothing is refused and the bound stays.
  for (const q of [16.7, 17, 17.5, 18.5])
    it(`a bucket of 50 refilled at ${q}/s, half full: not refused in a minute of probes, and its bound stays`, () => {
      const { r, throttles } = drainedThen('bucket', q);
      assert.deepEqual(throttles.map(Math.round), []);
      assert.ok(r.upper < 20.3, `bound ${r.upper}`);
    });

  // A bucket of 10 (Remaining 0-9): a probe that finds it falling leaves it sitting still where it
  // left it, a level that fits a window of any length read from our sends. Read so (10 a second,
  // 20 per 500 ms, within 1.5 times the drain), the pace went over the bucket's rate: four throttles
  // in a minute at 16.7/s and at 17.5/s (a review's GCRAs of 6.8-13.4/s, 6-10 at most, likewise).
  for (const [q, most] of [
    [16.7, 1],
    [17.5, 0],
  ] as const)
    it(`a bucket of 10 refilled at ${q}/s under that bound: a failed probe leaves no window read from our sends (${most} throttle${most === 1 ? '' : 's'} in a minute at most)`, () => {
      const { throttles } = drainedThen('bucket', q, 10, 5);
      assert.ok(throttles.length <= most, `throttled at ${throttles.map(Math.round)}`);
    });
});

describe('RemainingOnlyRate: a sliding window read from our sends, throttled at its own pace again and again', () => {
  it('a throttle every 3 s at 99 % of a 1 s log of 20 (a path with jitter): the share aimed at steps down a point a throttle from the second on, to 95 %, and comes back after 5 quiet minutes', () => {
    // A sliding log of 20 a second written here (our sends in the last second); answers at once.
    const r = new RemainingOnlyRate(1, 0.99);
    const log: number[] = [];
    let sent = 0;
    let t = 0;
    const send = (): void => {
      sent++;
      log.push(t);
      while (log[0]! <= t - 1000) log.shift();
      r.answer(t, Math.max(0, 20 - log.length), 20, sent, sent, r.rate ?? 16, Number.NEGATIVE_INFINITY);
    };
    let nextThrottle = 10_000;
    const rates: number[] = [];
    while (t < 40_000) {
      send();
      if (t >= nextThrottle && r.windowMs !== undefined) {
        r.throttled(t, r.rate!, Number.NEGATIVE_INFINITY, 0);
        rates.push(r.rate!);
        nextThrottle = t + 3000;
      }
      t += 1000 / (r.windowMs === undefined ? 16 : r.rate!);
    }
    assert.equal(r.windowMs, 1000);
    // 10 throttles: the first arms, each after takes a point, to 95 % (19/s).
    assert.ok(Math.abs(rates[0]! - 19.8) < 1e-9, `first ${rates[0]}`);
    assert.ok(Math.abs(rates[1]! - 19.6) < 1e-9, `second ${rates[1]}`);
    assert.ok(Math.abs(r.rate! - 19) < 1e-9, `last ${r.rate}`);
    // Five quiet minutes give a point back.
    const quietFrom = t;
    while (t < quietFrom + 301_000) {
      send();
      t += 1000 / r.rate!;
    }
    assert.ok(Math.abs(r.rate! - 19.2) < 1e-9, `after 5 minutes ${r.rate}`);
  });
});

interface Drain {
  rate: number;
  capacity: number;
  sendRate: number;
  medianMs: number;
  p99Ms: number;
  seed: number;
  /** Where on the way the vendor counts a request: as it leaves (0), half way (0.5). */
  wayThere: number;
}

// A bucket of `capacity` refilled at `rate` a second, sent to at `sendRate` from full, with
// round trips drawn from a log-normal (median `medianMs`, 99th percentile `p99Ms`, seeded),
// counting each request `wayThere` of its round trip after it left: its answers as they come
// back (when, Remaining, when sent, admitted up to it), up to the first refusal (`refused`);
// `admittedBy(t)`, the requests sent by then.
function drainAnswers(d: Drain): {
  answers: { t: number; remaining: number; sentAt: number; upTo: number }[];
  refused: { t: number; sentAt: number };
  admittedBy: (t: number) => number;
} {
  const rtt = logNormalRoundTrips(d.seed, d.medianMs, d.p99Ms);
  // Sent evenly for as long as the bucket takes to run dry, and 2 s more.
  const span = (1000 * d.capacity) / (d.sendRate - d.rate) + 2000;
  const sends: { at: number; back: number; counted: number; ok: boolean; remaining: number; upTo: number }[] =
    [];
  for (let at = 0; at < span; at += 1000 / d.sendRate) {
    const trip = rtt();
    sends.push({
      at,
      back: at + trip,
      counted: at + d.wayThere * trip,
      ok: true,
      remaining: 0,
      upTo: sends.length + 1,
    });
  }
  let tokens = d.capacity;
  let last = 0;
  for (const s of [...sends].sort((a, b) => a.counted - b.counted)) {
    tokens = Math.min(d.capacity, tokens + ((s.counted - last) * d.rate) / 1000);
    last = s.counted;
    s.ok = tokens >= 1;
    if (s.ok) tokens -= 1;
    s.remaining = s.ok ? Math.floor(tokens) : 0;
  }
  const admittedBy = (t: number) => sends.filter((s) => s.at <= t).length;
  const answers: { t: number; remaining: number; sentAt: number; upTo: number }[] = [];
  for (const a of [...sends].sort((x, y) => x.back - y.back)) {
    if (!a.ok) return { answers, refused: { t: a.back, sentAt: a.at }, admittedBy };
    answers.push({ t: a.back, remaining: a.remaining, sentAt: a.at, upTo: a.upTo });
  }
  throw new Error('no refusal');
}

// Each answer of drainAnswers read as the limiter reads it (admissions so far, those answered so
// far, when it was sent and how many went up to it), until the first refusal comes back: one
// throttle, with its send time.
function drainedBucket(d: Drain): RemainingOnlyRate {
  const r = new RemainingOnlyRate(1);
  const { answers, refused, admittedBy } = drainAnswers(d);
  let answered = 0;
  for (const a of answers) {
    answered++;
    r.answer(a.t, a.remaining, d.capacity, admittedBy(a.t), answered, d.sendRate, Number.NEGATIVE_INFINITY, {
      at: a.sentAt,
      upTo: a.upTo,
    });
  }
  r.throttled(
    refused.t,
    d.sendRate,
    Number.NEGATIVE_INFINITY,
    admittedBy(refused.t) - answered,
    refused.sentAt,
  );
  return r;
}

describe('RemainingOnlyRate: what a draining bucket frees, read where each answered request was sent', () => {
  const bucket = fc.record({
    rate: fc.integer({ min: 5, max: 50 }),
    // Seconds the bucket takes to run dry from full: what it holds.
    drainS: fc.double({ min: 2.5, max: 6, noNaN: true }),
    over: fc.double({ min: 1.25, max: 1.9, noNaN: true }),
    medianMs: fc.integer({ min: 30, max: 300 }),
    spread: fc.double({ min: 2, max: 6, noNaN: true }),
    seed: fc.integer({ min: 1, max: 1_000_000 }),
  });
  it('property: round trips said, the throttle that ends a drain bounds the bucket at its own rate (3 % and 0.8/s over at most, 6 % and 0.5/s under), in nine runs of ten or more', () => {
    // Before (answers read in the order they came back, against what had come back by then),
    // over 3,000 such buckets: 4.1 % off on average, 354 of 2,813 drains read over the bound
    // (44 % over at worst) and 42 under it. Now 0.3 % off on average, none outside (7.7 % over
    // at worst, at 5/s: a request pending a refusal, one whole request in Remaining).
    let runs = 0;
    let drains = 0;
    fc.assert(
      fc.property(bucket, ({ rate, drainS, over, medianMs, spread, seed }) => {
        const sendRate = rate * over;
        const capacity = Math.round(drainS * (sendRate - rate));
        const r = drainedBucket({
          rate,
          capacity,
          sendRate,
          medianMs,
          p99Ms: medianMs * spread,
          seed,
          wayThere: 0,
        });
        runs++;
        // Not read as a drain: the bound is the rate in force (over the bucket's, and true).
        if (r.upper >= 0.95 * sendRate) return;
        drains++;
        const read = `${r.upper.toFixed(2)}/s for ${rate}/s, sent at ${sendRate.toFixed(2)}/s`;
        assert.ok(r.upper <= 1.03 * rate + 0.8, read);
        assert.ok(r.upper >= 0.94 * rate - 0.5, read);
      }),
    );
    assert.ok(drains >= 0.9 * runs, `${drains} of ${runs} read as drains`);
  });
});

describe('countOrder: answers in the order the vendor counted them, with what it had counted and left', () => {
  type Said = { t: number; remaining: number; sentAt?: number; upTo?: number };
  const cases: [string, Said[], number[], number, { at: number; level: number }[] | undefined][] = [
    [
      'counted as it left: an answer back late is put where it was sent',
      [
        { t: 100, remaining: 5, sentAt: 0, upTo: 1 },
        { t: 300, remaining: 3, sentAt: 200, upTo: 3 },
        { t: 700, remaining: 4, sentAt: 100, upTo: 2 },
      ],
      [],
      0,
      [
        { at: 0, level: 6 },
        { at: 100, level: 6 },
        { at: 200, level: 6 },
      ],
    ],
    [
      'counted half way: a request sent first and counted last had two more counted before it',
      [
        { t: 1000, remaining: 2, sentAt: 0, upTo: 1 },
        { t: 200, remaining: 4, sentAt: 100, upTo: 2 },
        { t: 300, remaining: 3, sentAt: 200, upTo: 3 },
      ],
      [],
      0.5,
      // The vendor counted the second (4 left), the third (3 left), then the first (2 left): its
      // count plus what it had left stays 5, a bucket that freed nothing meanwhile.
      [
        { at: 150, level: 5 },
        { at: 250, level: 5 },
        { at: 500, level: 5 },
      ],
    ],
    [
      'a refusal sent before an answer comes off what the vendor counted of ours up to it',
      [
        { t: 50, remaining: 2, sentAt: 0, upTo: 1 },
        { t: 350, remaining: 1, sentAt: 300, upTo: 4 },
      ],
      [150],
      0,
      [
        { at: 0, level: 3 },
        { at: 300, level: 4 },
      ],
    ],
    [
      'one answer without its send time: none is read so',
      [
        { t: 50, remaining: 2, sentAt: 0, upTo: 1 },
        { t: 60, remaining: 1 },
      ],
      [],
      0,
      undefined,
    ],
  ];
  for (const [name, answers, refused, way, want] of cases)
    it(name, () =>
      assert.deepEqual(
        countOrder(answers, refused, way)?.map(({ at, level }) => ({ at, level })),
        want,
      ),
    );
});

describe('lineFit: the least-squares line through what a bucket had counted and left', () => {
  const cases: [string, { at: number; level: number }[], number, number | undefined][] = [
    ['a level up 20 a second', [0, 250, 500, 750, 1000].map((at) => ({ at, level: 10 + at / 50 })), 1000, 20],
    [
      'whole requests: one reading a request high moves the slope less than the ends would',
      [
        { at: 0, level: 0 },
        { at: 500, level: 10 },
        { at: 1000, level: 20 },
        { at: 1500, level: 30 },
        { at: 2000, level: 41 },
      ],
      1000,
      20.4,
    ],
    ['under minMs: none', [0, 100, 900].map((at) => ({ at, level: at / 50 })), 1000, undefined],
    ['fewer than three: none', [0, 2000].map((at) => ({ at, level: at / 50 })), 1000, undefined],
  ];
  for (const [name, points, minMs, want] of cases)
    it(name, () => {
      const got = lineFit(points, minMs)?.perSecond;
      if (want === undefined) assert.equal(got, undefined);
      else assert.ok(got !== undefined && Math.abs(got - want) < 1e-9, `${got}`);
    });
  it('a line through the points leaves no residual; one a request off leaves some', () => {
    assert.ok(
      lineFit(
        [0, 500, 1000].map((at) => ({ at, level: at / 50 })),
        1000,
      )!.residual < 1e-12,
    );
    assert.ok(
      lineFit(
        [
          { at: 0, level: 0 },
          { at: 500, level: 11 },
          { at: 1000, level: 20 },
        ],
        1000,
      )!.residual > 0.1,
    );
  });
});

describe('orderedFit: where on the way the vendor counts, read from which order fits the answers best', () => {
  // The answers of the last 2 s before a drained bucket's first refusal (what the limiter keeps),
  // read for each way there, at round trips of p50 120 ms and p99 600 ms; buckets of 5-50/s sent
  // to at 1.1-2x their rate. Counted as a request leaves, nearly every reading says so; counted
  // half way, most do. At p50 300 ms, half way is read right in 14-68 % of such drains (the
  // requests still on their way are not in the count, and they are many): a known limit, in the
  // README.
  const runs = (wayThere: number) => {
    const random = seededRandom(20261204 + wayThere * 1000);
    let right = 0;
    let read = 0;
    for (let i = 0; i < 200; i++) {
      const rate = 5 + Math.floor(45 * random());
      const { answers, refused } = drainAnswers({
        rate,
        capacity: Math.max(3, Math.round(rate * (2.5 + 3.5 * random()))),
        sendRate: rate * (1.1 + 0.9 * random()),
        medianMs: 120,
        p99Ms: 600,
        seed: i + 1,
        wayThere,
      });
      const fit = orderedFit(
        answers.filter((a) => a.t >= refused.t - 2000),
        [],
        1000,
      );
      if (fit?.perSecond === undefined) continue;
      read++;
      if (fit.wayThere === wayThere) right++;
    }
    return { right, read };
  };

  it('a bucket counting each request as it leaves: read so in at least 97 % of 200 drains', () => {
    const { right, read } = runs(0);
    assert.ok(read >= 190, `${read} read`);
    assert.ok(right >= 0.97 * read, `${right} of ${read}`);
  });

  it('a bucket counting each request half way (a symmetric path): read so in at least 80 % of 200 drains', () => {
    const { right, read } = runs(0.5);
    assert.ok(read >= 190, `${read} read`);
    assert.ok(right >= 0.8 * read, `${right} of ${read}`);
  });

  it('no round trip said: nothing read', () => {
    const answers = [
      { t: 0, remaining: 3 },
      { t: 500, remaining: 2 },
      { t: 1200, remaining: 1 },
    ];
    assert.equal(orderedFit(answers, [], 1000), undefined);
  });
});

describe('RemainingOnlyRate: a refusal that finds the vendor spent still', () => {
  // A vendor of Limit 1 (Remaining 0 on every answer that goes through): one request accepted,
  // one refused with a Retry-After of 1 s, 1.5 s apart, sent at 2/s. `probes`: no request goes
  // through between the refusals (the vendor stays spent, as a counter whose Retry-After falls
  // short of its window's end).
  const drive = (o: { probes: boolean; sent: boolean }): number[] => {
    const ro = new RemainingOnlyRate(0.1);
    let admitted = 0;
    let current = 2;
    let quiet = Number.NEGATIVE_INFINITY;
    const rates: number[] = [];
    for (let k = 0; k < 10; k++) {
      const t0 = k * 1500;
      if (!o.probes || k === 0) {
        admitted++;
        ro.answer(
          t0 + 100,
          0,
          1,
          admitted,
          admitted - k,
          current,
          quiet,
          o.sent ? { at: t0, upTo: admitted } : undefined,
        );
        ro.accepted(t0);
        current = ro.rate ?? current;
      }
      admitted++;
      ro.throttled(t0 + 600, current, quiet, 0, t0 + 500, {
        ...(o.sent ? { upTo: admitted } : {}),
        retryAfterMs: 1000,
      });
      current = ro.rate ?? current;
      quiet = t0 + 2600;
      rates.push(current);
    }
    return rates;
  };

  it('refused again with nothing accepted between: the rate is not cut again', () => {
    const rates = drive({ probes: true, sent: true });
    assert.ok(
      rates.every((r) => r === rates[0]),
      rates.join(' '),
    );
  });

  it('accepted between (Remaining 0 on each, a Limit of 1), with or without the admission log reaching back: each refusal cuts, as a throttle', () => {
    // Cleared only by an answer with Remaining over 0 whose send the admission log said, the
    // latch held the rate where the first refusal put it (the review's script: 1.00/s ten times).
    for (const sent of [true, false]) {
      const rates = drive({ probes: false, sent });
      assert.ok(rates[9]! < rates[0]!, `${sent}: ${rates.join(' ')}`);
    }
  });

  it('refused again without a Retry-After: that refusal cuts', () => {
    const ro = new RemainingOnlyRate(0.1);
    ro.answer(100, 5, 10, 1, 1, 20, Number.NEGATIVE_INFINITY, { at: 0, upTo: 1 });
    ro.throttled(600, 20, Number.NEGATIVE_INFINITY, 0, 500, { upTo: 2, retryAfterMs: 1000 });
    const first = ro.rate!;
    ro.throttled(2700, first, 2600, 0, 2500);
    ro.throttled(4700, ro.rate!, 2600, 0, 4500);
    assert.ok(ro.rate! < first, `${first} -> ${ro.rate}`);
  });
});
