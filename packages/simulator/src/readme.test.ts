import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';

for (const file of ['readme-example.test.ts', 'readme-policy.test.ts'])
  it(`the README example of ${file} is the test we run, verbatim`, async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const example = await readFile(new URL(`./${file}`, import.meta.url), 'utf8');
    const code = example.split('\n').slice(1).join('\n');
    assert.ok(readme.includes(`\`\`\`ts\n${code}\`\`\``), `README.md and src/${file} differ`);
  });
