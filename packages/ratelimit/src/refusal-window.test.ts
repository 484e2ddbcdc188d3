import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { refusalEnd, windowFromRefusal } from './refusal-window.js';
import { ROUND_WINDOWS_MS } from './round-window.js';

describe("refusalEnd: where a window ends, by a refusal's Retry-After", () => {
  const rows: [
    name: string,
    sentAt: number,
    answeredAt: number,
    retryAfterMs: number,
    lo: number,
    hi: number,
  ][] = [
    ['whole seconds: a second either way of the send and the answer', 18_998, 19_021, 3000, 20_998, 23_021],
    ['an HTTP-date read against our clock (962 ms): no finer than a second', 3000, 3038, 962, 2962, 5000],
  ];
  for (const [name, sentAt, answeredAt, retryAfterMs, lo, hi] of rows)
    it(name, () => assert.deepEqual(refusalEnd(sentAt, answeredAt, retryAfterMs), { lo, hi }));
});

describe('windowFromRefusal: the window of a counter, from its start and a refusal', () => {
  // A counter of 100 per 10 s whose window began between 11.0 s and 11.2 s (the send of the
  // answer before the reset, the answer after it), its level at 100 at every answer since,
  // refused at 18.998 s (answered 19.021 s) with Retry-After: 3.
  const base = {
    startLo: 11_000,
    startHi: 11_200,
    end: refusalEnd(18_998, 19_021, 3000),
    level: { least: 100, most: 100 },
    limit: 100,
    windows: ROUND_WINDOWS_MS,
  };
  const rows: [
    name: string,
    change: Partial<typeof base> & { maxWindowMs?: number },
    expected: number | undefined,
  ][] = [
    ['its level at its limit, one window fits (9.8-12.0 s): 10 s', {}, 10_000],
    ['its level within 5 of it (answers out of order): 10 s', { level: { least: 96, most: 101 } }, 10_000],
    ['its level 95 to 101: 6 apart, none', { level: { least: 95, most: 101 } }, undefined],
    [
      'its level up to 106: it freed some (a bucket refilling, a log): none',
      { level: { least: 100, most: 106 } },
      undefined,
    ],
    [
      'its level down to 94: it counts others too, or began before the reset: none',
      { level: { least: 94, most: 100 } },
      undefined,
    ],
    [
      'a limit of 5, its level up by 2 (a sliding counter weighing its last window less): none',
      { level: { least: 5, most: 7 }, limit: 5 },
      undefined,
    ],
    ['a limit of 5, its level one off: 10 s', { level: { least: 4, most: 5 }, limit: 5 }, 10_000],
    [
      'a limit of 5, its level from one under to one over (a sliding counter of 5 per 2 s, read as 5 s): none',
      { level: { least: 4, most: 6 }, limit: 5 },
      undefined,
    ],
    ['its start known only to 5-11.2 s (9.8-18.0 s: 10 s and 15 s fit): none', { startLo: 5000 }, undefined],
    ['over the longest window it can be: none', { maxWindowMs: 9999 }, undefined],
    [
      'a 1 s window, a Retry-After in whole seconds (0.9-3.0 s: 1 s and 2 s fit): none',
      {
        startLo: 0,
        startHi: 50,
        end: refusalEnd(950, 1000, 1000),
        level: { least: 20, most: 20 },
        limit: 20,
      },
      undefined,
    ],
    [
      'a 1 s counter begun at 2.0-2.05 s, refused at 3.0 s by an HTTP-date 962 ms on (0.91-2.96 s): none',
      {
        startLo: 2000,
        startHi: 2050,
        end: refusalEnd(3000, 3038, 962),
        level: { least: 20, most: 20 },
        limit: 20,
      },
      undefined,
    ],
    [
      'a 3 s window begun within 50 ms (2.1-4.2 s): 3 s alone',
      {
        startLo: 0,
        startHi: 50,
        end: refusalEnd(2000, 2050, 1150),
        level: { least: 20, most: 20 },
        limit: 20,
      },
      3000,
    ],
    [
      'a minute (a Retry-After of 20 s, 41 s into it): 60 s',
      {
        startLo: 0,
        startHi: 300,
        end: refusalEnd(41_000, 41_200, 20_000),
        level: { least: 600, most: 600 },
        limit: 600,
      },
      60_000,
    ],
  ];
  for (const [name, change, expected] of rows)
    it(name, () => assert.equal(windowFromRefusal({ ...base, ...change }), expected));
});

describe('windowFromRefusal against counters of every window vendors configure (property)', () => {
  it('reads the true window or none, whatever the rounding of Retry-After, the round trips and where the start is known', () => {
    // The counter is generated here, not by the rule: a window of `w` began at `start`; the
    // reset was read between two sends either side of it; a request sent later, counted on
    // arrival, was refused with the time left to the end rounded up, down or to the nearest
    // second (1 s at least), and answered a while later.
    let reads = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...ROUND_WINDOWS_MS.filter((w) => w <= 600_000)),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        fc.integer({ min: 0, max: 1500 }),
        fc.integer({ min: 0, max: 1500 }),
        fc.constantFrom('up', 'down', 'nearest'),
        fc.integer({ min: -8, max: 8 }),
        (w, start, before, after, at, wayThere, wayBack, rounding, off) => {
          const limit = 100;
          const startLo = start - before * w;
          const startHi = start + after * Math.min(w, 2000);
          const arrival = start + at * w;
          const left = start + w - arrival;
          const round = rounding === 'up' ? Math.ceil : rounding === 'down' ? Math.floor : Math.round;
          const retryAfterMs = Math.max(1, round(left / 1000)) * 1000;
          const end = refusalEnd(arrival - wayThere, arrival + wayBack, retryAfterMs);
          const read = windowFromRefusal({
            startLo,
            startHi,
            end,
            level: { least: limit + Math.min(0, off), most: limit + Math.max(0, off) },
            limit,
            windows: ROUND_WINDOWS_MS,
          });
          if (read !== undefined) reads++;
          // Its level off by more than a twentieth of the limit: no counter begun afresh, none read.
          return read === undefined || (read === w && Math.abs(off) <= 5);
        },
      ),
    );
    // Not by reading nothing: 21-38 of 100 runs read their window over 30 random seeds.
    assert.ok(reads >= 10, `${reads} of 100 runs read a window`);
  });
});
