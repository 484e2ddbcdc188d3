import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { RunResult } from './runner.js';
import { formatTimeline } from './timeline.js';

it('prints each broken claim: every attempt, verdict, wait and decision', () => {
  const r = {
    scenario: { name: 'x', seed: 3 },
    hash: 'abc',
    claims: 2,
    broken: [
      {
        index: 7,
        correlationId: 'c-7',
        lane: 'pos',
        records: [
          {
            at: 1000,
            correlationId: 'c-7',
            claimKey: 'k',
            type: 'attempt',
            attempt: 1,
            node: 'primary',
            verdict: 'throttled',
            status: 429,
          },
          {
            at: 1000,
            correlationId: 'c-7',
            claimKey: 'k',
            type: 'decision',
            decision: 'wait:throttled',
            waitMs: 250,
          },
          {
            at: 1250,
            correlationId: 'c-7',
            claimKey: 'k',
            type: 'attempt',
            attempt: 2,
            node: 'primary',
            verdict: 'terminal-reject',
            status: 200,
            codes: ['79'],
          },
          {
            at: 1250,
            correlationId: 'c-7',
            claimKey: 'k',
            type: 'outcome',
            path: ['primary', 'wait:throttled', 'primary'],
            outcome: { kind: 'rejected' },
          },
        ],
      },
    ],
  } as unknown as RunResult;
  const text = formatTimeline(r);
  assert.match(text, /1 claim\(s\) broke an invariant/);
  assert.match(text, /claim #7 · correlation c-7 · lane pos/);
  assert.match(text, /\+ +0\.0 ms {2}attempt 1 → primary: throttled \(429\)/);
  assert.match(text, /decide wait:throttled \(wait 250 ms\)/);
  assert.match(text, /\+ +250\.0 ms {2}attempt 2 → primary: terminal-reject \(200\) codes 79/);
  assert.match(text, /outcome rejected · path primary › wait:throttled › primary/);
});
