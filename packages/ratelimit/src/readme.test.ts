// The README's examples are tests of ours: each file named here appears in README.md verbatim,
// in a ```ts block, minus its lines marked "not in the README".
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';

const EXAMPLES = ['redis/readme-redis'];

for (const name of EXAMPLES)
  it(`README.md shows src/${name}.test.ts verbatim`, async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => m[1]!.trim());
    const example = (await readFile(new URL(`./${name}.test.ts`, import.meta.url), 'utf8'))
      .split('\n')
      .filter((line) => !line.includes('// not in the README'))
      .join('\n')
      .trim();
    assert.ok(blocks.includes(example), `README.md has no ts block equal to src/${name}.test.ts`);
  });
