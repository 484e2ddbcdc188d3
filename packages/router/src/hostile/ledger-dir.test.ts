// Hostile: the default file ledger's directory is removed while the router runs (an operator's
// cleanup, a tmpfs remount); claims then fail over to the fallback, which pays them and holds the
// answers; the process is killed (SIGKILL) and restarted on the same path with the primary back.
// A pin written to an unlinked file is no pin: whatever the router did (reopen the path, or
// refuse to send), no claim may be paid on both nodes.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startChild } from './child.fixture.js';
import { SECRET, within } from './harness.fixture.js';
import { makeClaim, seeded, twoNodes } from './independent-vendor.fixture.js';

describe('hostile: the ledger directory disappears mid-run', () => {
  it('removed after 2 claims, 4 more failed over and held, kill -9, restart with the primary back: none paid twice', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hostile-ledgerdir-'));
    const rand = seeded(90);
    const claims = Array.from({ length: 6 }, (_, i) => makeClaim(9000, i, rand));
    const index = new Map(claims.map((c, i) => [c.content, i]));
    const v = await twoNodes({
      fallback: (r) => ((index.get(r.content) ?? 0) >= 2 ? { kind: 'hold-after-commit' } : { kind: 'ok' }),
    });
    const first = join(dir, 'first.json');
    const second = join(dir, 'second.json');
    const all = join(dir, 'all.json');
    await writeFile(first, JSON.stringify(claims.slice(0, 2).map((c) => c.raw)));
    await writeFile(second, JSON.stringify(claims.slice(2).map((c) => c.raw)));
    await writeFile(all, JSON.stringify(claims.map((c) => c.raw)));
    const ledgerDir = join(dir, 'state');
    const base = {
      primary: v.primary.url,
      secondary: v.fallback.url,
      ledgerPath: join(ledgerDir, 'ledger.jsonl'),
      lane: 'batch',
      secret: SECRET,
    };
    try {
      await v.primary.down();
      const one = startChild({ ...base, claimsFile: first, claimsFile2: second });
      await within(
        one.next((l) => l.batch1 === true),
        60_000,
        'first batch',
      );
      await rm(ledgerDir, { recursive: true, force: true });
      one.child.stdin?.write('go\n');
      // Either the 4 claims reach the fallback (and are held) or they end without being sent.
      const sentOrEnded = Promise.race([v.fallback.waitForCommits(6), one.next((l) => (l.i ?? -1) >= 2)]);
      await within(sentOrEnded, 60_000, 'second batch sent or ended');
      const ended = one.lines.filter((l) => (l.i ?? -1) >= 2);
      const recreated = existsSync(join(ledgerDir, 'ledger.jsonl'));
      one.child.kill('SIGKILL');
      await within(one.exit, 10_000, 'exit');
      // Claims 0 and 1 finished before the removal: their record went with the directory (the
      // operator deleted it), so only the claims pinned after the removal are held to the rule.
      const paidOnFallback = new Set(
        claims
          .slice(2)
          .filter((c) => v.book.paidCount(c.content) > 0)
          .map((c) => c.content),
      );

      await v.fallback.down();
      await v.primary.up();
      const two = startChild({ ...base, claimsFile: all });
      await within(
        two.next((l) => l.done === true),
        60_000,
        'restart',
      );
      assert.equal(await two.exit, 0);
      const wrong = v.primary.seen.filter((r) => paidOnFallback.has(r.content));
      assert.equal(
        wrong.length,
        0,
        `${wrong.length} claim(s) paid on the fallback after the ledger directory was removed were sent to the primary after restart (ledger file at its path before the kill: ${recreated}; second batch outcomes before the kill: ${JSON.stringify(ended)})`,
      );
      const twice = v.book.paidTwice().filter((p) => paidOnFallback.has(p.content));
      assert.deepEqual(twice, []);
    } finally {
      await v.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
