import assert from 'node:assert/strict';
import { it } from 'node:test';
import { counters } from './meter.js';

it('counters: one counter per entry, named <prefix>.<name>, with its description and unit', () => {
  const made: Array<{ name: string; description?: string; unit?: string; adds: number[] }> = [];
  const meter = {
    createCounter(name: string, o?: { description?: string; unit?: string }) {
      const c = { name, ...o, adds: [] as number[] };
      made.push(c);
      return { add: (v: number) => void c.adds.push(v) };
    },
  };
  const { hits, misses } = counters(meter, 'rxgate.test', {
    hits: { description: 'Hits', unit: '{hit}' },
    misses: { description: 'Misses' },
  });
  hits.add(2);
  misses.add(1);
  assert.deepEqual(made, [
    { name: 'rxgate.test.hits', description: 'Hits', unit: '{hit}', adds: [2] },
    { name: 'rxgate.test.misses', description: 'Misses', adds: [1] },
  ]);
});
