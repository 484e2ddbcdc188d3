// The limiter speaks through its events and telemetry, never the console: a debugging line left
// behind (122f5cc printed every dropped bound to stderr, and biome allows console.error) is
// found here by a plain search of the package's own source.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';

describe('the package source', () => {
  it('writes nothing to the console (tests and test support aside)', async () => {
    const dir = new URL('./', import.meta.url);
    const found: string[] = [];
    for (const name of await readdir(dir, { recursive: true })) {
      if (!name.endsWith('.ts') || name.endsWith('.test.ts') || name.startsWith('test-support')) continue;
      const text = await readFile(new URL(name, dir), 'utf8');
      for (const [i, line] of text.split('\n').entries())
        if (line.includes('console.')) found.push(`${name}:${i + 1}: ${line.trim()}`);
    }
    assert.deepEqual(found, []);
  });
});
