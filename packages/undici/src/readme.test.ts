// Every package README opens with examples that are tests of ours: each README holds, verbatim
// in a ```ts block, the example files named here, minus their lines marked "not in the README".
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';

const README_EXAMPLES: Record<string, readonly string[]> = {
  breaker: ['readme-breaker', 'readme-wrap', 'readme-undici'],
  ratelimit: ['readme-ratelimit', 'readme-wrap', 'readme-undici'],
  retry: ['readme-retry', 'readme-wrap', 'readme-undici'],
  classifier: ['readme-classifier', 'readme-wrap', 'readme-undici'],
  core: ['readme-wrap', 'readme-undici'],
  undici: ['readme-undici', 'readme-wrap'],
};

const example = async (name: string): Promise<string> =>
  (await readFile(new URL(`./${name}.test.ts`, import.meta.url), 'utf8'))
    .split('\n')
    .filter((line) => !line.includes('// not in the README'))
    .join('\n')
    .trim();

for (const [pkg, names] of Object.entries(README_EXAMPLES))
  it(`packages/${pkg}/README.md opens with ${names.join(', ')}, verbatim`, async () => {
    const readme = await readFile(new URL(`../../${pkg}/README.md`, import.meta.url), 'utf8');
    const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => m[1]!.trim());
    const wanted = await Promise.all(names.map(example));
    // They are the first ts blocks of the README, in this order.
    assert.deepEqual(blocks.slice(0, wanted.length), wanted);
  });
