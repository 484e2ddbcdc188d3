import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type QuotaSignal, signalAsAnswered } from './quota-signal.js';

describe('signalAsAnswered', () => {
  const rows: readonly [string, QuotaSignal, number, number, QuotaSignal][] = [
    [
      'the reset less half the time from send to answer, and the round trip from the admission',
      { remaining: 4, resetSeconds: 0.75 },
      500,
      600,
      { remaining: 4, resetSeconds: 0.5, roundTripMs: 600 },
    ],
    ['never a reset below 0', { resetSeconds: 0.1 }, 500, 500, { resetSeconds: 0, roundTripMs: 500 }],
    [
      'an answer that took no time: the reset as it came',
      { resetSeconds: 0.1 },
      0,
      0,
      { resetSeconds: 0.1, roundTripMs: 0 },
    ],
    ['no reset: the round trip only', { throttled: true }, 200, 200, { throttled: true, roundTripMs: 200 }],
  ];
  for (const [name, signal, sendToAnswer, roundTrip, want] of rows)
    it(name, () => assert.deepEqual(signalAsAnswered(signal, sendToAnswer, roundTrip), want));
});
