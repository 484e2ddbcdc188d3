// Hostile: claims fail over to the fallback while the primary refuses connections; the router
// process is killed (SIGKILL) with some answers of the fallback still unsent; it restarts on the
// same default file ledger with the primary back and the same claims resubmitted.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { startChild } from './child.fixture.js';
import { SECRET, within } from './harness.fixture.js';
import { type GeneratedClaim, makeClaim, seeded, twoNodes } from './independent-vendor.fixture.js';

async function scenario(opts: { n: number; held: ReadonlySet<number>; killAtCommit: number; seed: number }) {
  const dir = await mkdtemp(join(tmpdir(), 'hostile-restart-'));
  const rand = seeded(opts.seed);
  const claims: GeneratedClaim[] = Array.from({ length: opts.n }, (_, i) =>
    makeClaim(3000 + opts.seed, i, rand),
  );
  const index = new Map(claims.map((c, i) => [c.content, i]));
  const v = await twoNodes({
    fallback: (r) =>
      opts.held.has(index.get(r.content) ?? -1) ? { kind: 'hold-after-commit' } : { kind: 'ok' },
  });
  const claimsFile = join(dir, 'claims.json');
  await writeFile(claimsFile, JSON.stringify(claims.map((c) => c.raw)));
  const config = {
    primary: v.primary.url,
    secondary: v.fallback.url,
    ledgerPath: join(dir, 'ledger', 'ledger.jsonl'),
    claimsFile,
    lane: 'batch',
    secret: SECRET,
  };
  try {
    await v.primary.down(); // refuses connections
    // Run 1: everything fails over; killed at the fallback's k-th commit.
    const one = startChild(config);
    await within(v.fallback.waitForCommits(opts.killAtCommit), 60_000, 'fallback commits before kill');
    one.child.kill('SIGKILL');
    await within(one.exit, 10_000, 'child exit');
    assert.equal(v.primary.seen.length, 0);
    const paidOnFallback = new Set(
      claims.filter((c) => v.book.paidCount(c.content) > 0).map((c) => c.content),
    );

    // Run 2: the primary is back, the fallback refuses connections, same claims resubmitted.
    await v.fallback.down();
    await v.primary.up();
    const two = startChild(config);
    await within(
      two.next((l) => l.done === true),
      60_000,
      'run 2 done',
    );
    assert.equal(await two.exit, 0);
    const wrong = v.primary.seen.filter((r) => paidOnFallback.has(r.content));
    assert.equal(
      wrong.length,
      0,
      `${wrong.length} claim(s) paid on the fallback before the kill were sent to the primary after restart`,
    );
    assert.deepEqual(v.book.paidTwice(), [], 'paid twice by content (run 2)');
    const outcomes2 = two.lines.filter((l) => l.i !== undefined);
    assert.equal(outcomes2.length, opts.n, 'one outcome per submission (run 2)');
    assert.equal(new Set(outcomes2.map((l) => l.i)).size, opts.n);

    // Run 3: both nodes up, same claims: every claim paid exactly once by content.
    v.fallback.fault = () => ({ kind: 'ok' });
    await v.fallback.up();
    const three = startChild(config);
    await within(
      three.next((l) => l.done === true),
      60_000,
      'run 3 done',
    );
    assert.equal(await three.exit, 0);
    assert.deepEqual(v.book.paidTwice(), [], 'paid twice by content (run 3)');
    const outcomes3 = three.lines.filter((l) => l.i !== undefined);
    assert.equal(outcomes3.length, opts.n, 'one outcome per submission (run 3)');
    for (const l of outcomes3)
      assert.ok(['paid', 'duplicate'].includes(l.kind ?? ''), `run 3 claim ${l.i}: ${l.kind}`);
    for (const c of claims) assert.equal(v.book.paidCount(c.content), 1, `claim ${c.content} paid count`);
  } finally {
    await v.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('hostile: kill -9 after failover, restart on the default file ledger', () => {
  it('8 claims, 4 answers held by the fallback at the kill: none goes to the primary after restart', async () => {
    await scenario({ n: 8, held: new Set([1, 3, 5, 7]), killAtCommit: 8, seed: 1 });
  });

  it('killed while the primary held 6 paid claims (a 504 storm then silence): restarted with the primary refusing, none goes to the fallback', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hostile-restart-'));
    const rand = seeded(55);
    const claims = Array.from({ length: 6 }, (_, i) => makeClaim(3500, i, rand));
    // First request of each claim: a 504 after commit; then the answer is held (timeout after commit).
    const v = await twoNodes({
      primary: (r) =>
        r.n <= 6 ? { kind: 'gateway-after-commit', status: 504 } : { kind: 'hold-after-commit' },
    });
    const claimsFile = join(dir, 'claims.json');
    await writeFile(claimsFile, JSON.stringify(claims.map((c) => c.raw)));
    const config = {
      primary: v.primary.url,
      secondary: v.fallback.url,
      ledgerPath: join(dir, 'ledger.jsonl'),
      claimsFile,
      lane: 'batch',
      secret: SECRET,
    };
    try {
      const one = startChild(config);
      await within(
        v.primary.waitForRequest((r) => r.n >= 8),
        60_000,
        'retries held on the primary',
      );
      one.child.kill('SIGKILL');
      await within(one.exit, 10_000, 'exit');
      assert.equal(v.fallback.seen.length, 0, 'failed over before the kill');
      await v.primary.down();
      const two = startChild(config);
      await within(
        two.next((l) => l.done === true),
        60_000,
        'run 2',
      );
      assert.equal(await two.exit, 0);
      assert.equal(
        v.fallback.seen.length,
        0,
        `${v.fallback.seen.length} pinned claims sent to the fallback after restart`,
      );
      const outs = two.lines.filter((l) => l.i !== undefined);
      assert.equal(outs.length, 6);
      for (const l of outs) assert.equal(l.kind, 'needs-reconciliation', `claim ${l.i}: ${l.kind}`);
      v.primary.fault = () => ({ kind: 'ok' });
      await v.primary.up();
      const three = startChild(config);
      await within(
        three.next((l) => l.done === true),
        60_000,
        'run 3',
      );
      for (const l of three.lines.filter((x) => x.i !== undefined))
        assert.ok(['paid', 'duplicate'].includes(l.kind ?? ''), `run 3 claim ${l.i}: ${l.kind}`);
      for (const c of claims) assert.equal(v.book.paidCount(c.content), 1);
    } finally {
      await v.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the oracle is not blind: the same story on the memory ledger sends claims paid on the fallback to the primary', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hostile-restart-'));
    const rand = seeded(99);
    const claims = Array.from({ length: 4 }, (_, i) => makeClaim(3999, i, rand));
    const v = await twoNodes({ fallback: () => ({ kind: 'hold-after-commit' }) });
    const claimsFile = join(dir, 'claims.json');
    await writeFile(claimsFile, JSON.stringify(claims.map((c) => c.raw)));
    const config = {
      primary: v.primary.url,
      secondary: v.fallback.url,
      ledgerPath: join(dir, 'ledger.jsonl'),
      claimsFile,
      lane: 'batch',
      secret: SECRET,
      memory: true,
    };
    try {
      await v.primary.down();
      const one = startChild(config);
      await within(v.fallback.waitForCommits(4), 60_000, 'fallback commits');
      one.child.kill('SIGKILL');
      await within(one.exit, 10_000, 'exit');
      await v.fallback.down();
      await v.primary.up();
      const two = startChild(config);
      await within(
        two.next((l) => l.done === true),
        60_000,
        'run 2',
      );
      await two.exit;
      assert.ok(
        v.book.paidTwice().length > 0,
        'the memory ledger forgets pins: the oracle must count double payments',
      );
    } finally {
      await v.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('property: random held answers, killed at a random commit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 3, max: 8 }).chain((n) =>
          fc.record({
            n: fc.constant(n),
            held: fc.uniqueArray(fc.nat({ max: n - 1 }), { maxLength: n }).map((a) => new Set(a)),
            killAtCommit: fc.integer({ min: 1, max: n }),
            seed: fc.nat({ max: 1_000_000 }),
          }),
        ),
        async (o) => scenario(o),
      ),
      { numRuns: Number(process.env.HOSTILE_RESTART_RUNS ?? 4) },
    );
  });
});
