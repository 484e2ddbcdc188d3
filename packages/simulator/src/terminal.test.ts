import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  fitToWidth,
  formatDuration,
  type ProgressState,
  progressFraction,
  progressLine,
  visibleWidth,
} from './terminal.js';

const state = (over: Partial<ProgressState> = {}): ProgressState => ({
  settled: 0,
  submitted: 0,
  totalClaims: undefined,
  elapsedMs: 0,
  durationMs: undefined,
  wallMs: 0,
  timeLabel: 'elapsed',
  ...over,
});

describe('fitToWidth', () => {
  it('leaves lines that fit exactly as they are, and wraps the others at spaces under an indent', () => {
    assert.equal(fitToWidth('short\n  also short', 20), 'short\n  also short');
    assert.equal(
      fitToWidth('  primary:retail open@34.1s → half-open@39.1s → open@39.2s', 30),
      '  primary:retail open@34.1s →\n    half-open@39.1s →\n    open@39.2s',
    );
  });

  it('counts columns, not escape codes, and cuts a word longer than a line', () => {
    const green = '\x1b[32m✓\x1b[0m ok';
    assert.equal(visibleWidth(green), 4);
    assert.equal(fitToWidth(green, 20), green);
    assert.deepEqual(
      fitToWidth(`x ${'y'.repeat(50)}`, 20)
        .split('\n')
        .map((l) => visibleWidth(l) <= 20),
      [true, true, true, true],
    );
  });

  it('never gives a line wider than the width, and never loses a word', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^ {0,4}[a-z→·✓]{1,12}( {1,2}[a-z0-9@.%→·]{1,30}){0,12}$/), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.integer({ min: 20, max: 140 }),
        (lines, width) => {
          const out = fitToWidth(lines.join('\n'), width);
          for (const l of out.split('\n'))
            assert.ok(visibleWidth(l) <= width, `${visibleWidth(l)} > ${width}: ${l}`);
          const words = (s: string) => s.split(/\s+/).filter(Boolean).join('');
          assert.equal(words(out), words(lines.join('\n')));
        },
      ),
    );
  });
});

describe('progressLine', () => {
  it('counts toward the end of a run by time when the run is a duration (loopback as virtual)', () => {
    const p = state({ settled: 9, submitted: 10, elapsedMs: 1000, durationMs: 4000, wallMs: 1000 });
    assert.equal(progressFraction(p), 0.25);
    const line = progressLine(p, 79);
    assert.match(line, /^\[#+\.+\] {2}25% {2}9 claims {2}1s\/4s elapsed {2}9\.0 claims\/s {2}ETA 3s$/);
  });

  it('counts claims when the run is a count, and shows the total', () => {
    const p = state({ settled: 500, submitted: 600, totalClaims: 2000, elapsedMs: 60_000, wallMs: 2000 });
    assert.match(
      progressLine(p, 100),
      / 25% {2}500\/2,000 claims {2}1m00s elapsed {2}250 claims\/s {2}ETA 6s$/,
    );
  });

  it('fits any width: the rate, the time and the count go before the bar gets too short', () => {
    const p = state({
      settled: 123_456,
      submitted: 130_000,
      totalClaims: 500_000,
      elapsedMs: 7_200_000,
      durationMs: 86_400_000,
      wallMs: 4000,
      timeLabel: 'simulated',
    });
    for (let width = 0; width <= 160; width++) {
      const line = progressLine(p, width);
      assert.ok(visibleWidth(line) <= width, `${width}: ${line}`);
      if (width >= 30) assert.match(line, /^\[#*\.*\] +24%/);
      if (width >= 30) assert.match(line, /ETA /);
    }
    assert.match(progressLine(p, 200), /123,456\/500,000 claims {2}2h00m\/24h00m simulated {2}31k claims\/s/);
  });

  it('is never full before the end, and full at it', () => {
    const mid = progressLine(state({ settled: 5, submitted: 5, elapsedMs: 10, durationMs: 1000 }), 60);
    assert.match(mid, /^\[\.+\]/);
    const end = progressLine(state({ settled: 5, submitted: 5, elapsedMs: 1000, durationMs: 1000 }), 60);
    assert.match(end, /^\[#+\] 100%/);
  });

  it('formats durations', () => {
    assert.deepEqual([950, 42_000, 185_000, 7_620_000, -1].map(formatDuration), [
      '950ms',
      '42s',
      '3m05s',
      '2h07m',
      '…',
    ]);
  });
});
