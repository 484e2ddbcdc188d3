import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { classify } from './classify.js';
import { REJECT_CODES } from './reject-codes.js';

// The repository's docs/, found upward from here: also from a copy of the package one or two
// levels deeper (Stryker's sandbox, packages/classifier/.stryker-tmp/sandbox-*/src).
function docsDir(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir))
    if (existsSync(join(dir, 'docs', 'reject-codes.md'))) return join(dir, 'docs');
  throw new Error('docs/reject-codes.md not found above the classifier');
}
const doc = (name: string) => readFile(join(docsDir(), name), 'utf8');

it('docs/reject-codes.md lists every catalogue code under its group, and no other', async () => {
  const text = await doc('reject-codes.md');
  const listed = new Map<string, { group: string; label: string }>();
  let group: string | undefined;
  for (const line of text.slice(text.indexOf('## Every code')).split('\n')) {
    const heading = /^### (\S+)$/.exec(line);
    if (heading) group = heading[1];
    const row = /^\| (`[^|]+?`)\s*\| (.+?)\s*\|$/.exec(line);
    if (!row || group === undefined) continue;
    for (const code of row[1]!.split(', ')) listed.set(code.slice(1, -1), { group, label: row[2]! });
  }
  assert.deepEqual(
    [...listed].sort(([a], [b]) => a.localeCompare(b)),
    [...REJECT_CODES]
      .map(([code, e]) => [code, { group: e.group, label: e.label }])
      .sort(([a], [b]) => String(a).localeCompare(String(b))),
  );
});

it('the README shows the request and response bodies of the vendor contract it links to', async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const contract = await doc('vendor-contract.md');
  for (const link of ['docs/vendor-contract.md', 'docs/reject-codes.md'])
    assert.match(readme, new RegExp(`\\(https://github\\.com/rxgate/rxgate/blob/main/${link}\\)`));
  for (const body of ['"112-AN": "P"', '"112-AN": "R"', '"511-FB"', '"407-D7"', 'Idempotency-Key'])
    assert.ok(readme.includes(body) && contract.includes(body), body);
});

it('every answer in the README table classifies as the table says', async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  let rows = 0;
  let checked = 0;
  for (const line of readme.split('\n')) {
    const row = /^\| `(\d{3})` `(\{.*?\})`(?: with (.*?))?\s+\| `([a-z-]+)`(.*?)\|$/.exec(line);
    if (!row) continue;
    rows++;
    const headers: Record<string, string> = {};
    for (const [, name, value] of (row[3] ?? '').matchAll(/`([A-Za-z-]+): ([^`]+)`/g))
      headers[name!] = value!;
    const verdict = classify({ status: Number(row[1]), headers, body: JSON.parse(row[2]!) }, { now: 0 });
    assert.equal(verdict.kind, row[4], line);
    for (const [, path, value] of (row[5] ?? '').matchAll(/`([\w.]+)(?:: |` `)'?([\w.-]+)'?`/g)) {
      let at: unknown = verdict;
      for (const key of path!.split('.')) at = (at as Record<string, unknown> | undefined)?.[key];
      assert.equal(String(at), value, `${path} in ${line}`);
      checked++;
    }
  }
  assert.ok(rows >= 12 && checked >= 8, `only ${rows} rows and ${checked} fields read`);
});
