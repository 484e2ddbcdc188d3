import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';

it('the README example is the test we run, verbatim', async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const example = await readFile(new URL('./readme-example.test.ts', import.meta.url), 'utf8');
  const code = example.split('\n').slice(1).join('\n');
  assert.ok(readme.includes(`\`\`\`ts\n${code}\`\`\``), 'README.md and src/readme-example.test.ts differ');
});
