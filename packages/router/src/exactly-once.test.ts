// The four ways an independent vendor got claims paid twice, over real HTTP (msw served on
// loopback node:http), each counted by claim *content* — the NCPDP duplicate rule — never by
// our Idempotency-Key; and the joiner, audit and close cases of the same issue.
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createBreakers } from '@rxgate/breaker';
import { createLimiter } from '@rxgate/ratelimit';
import { JsonlAuditLog } from './audit.js';
import type { AuditAlarm } from './audit-keeper.js';
import { MemoryDeadLetterQueue, parseDeadLetter, serializeDeadLetter } from './dead-letters.js';
import { openFileLedger } from './journal-ledger.js';
import { MemoryLedger } from './memory-ledger.js';
import type { Outcome } from './outcome.js';
import { createRouter, type RouterOptions } from './router.js';
import { rawClaim, SECRET } from './test-support/fixtures.js';
import { type LoopbackServer, serve } from './test-support/msw-server.js';
import { PAID, type TestVendor, testVendor } from './test-support/vendor.js';
import { undiciTransport } from './transport.js';

const servers: LoopbackServer[] = [];
const dirs: string[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function node(
  paid: Map<string, number>,
): Promise<{ url: string; vendor: TestVendor; server: LoopbackServer }> {
  const server = await serve();
  servers.push(server);
  const vendor = testVendor(server.url);
  vendor.paidByContent = paid;
  server.use(...vendor.handlers);
  return { url: server.url, vendor, server };
}

/** A URL where nothing listens: connections are refused (the request never leaves). */
async function refusedUrl(): Promise<string> {
  const s = await serve();
  await s.close();
  return s.url;
}

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'rxgate-eo-'));
  dirs.push(d);
  return d;
}

const claims = (n: number, from = 7000) =>
  Array.from({ length: n }, (_, i) => rawClaim({ '402-D2': String(from + i) }));
const paidTwice = (paid: Map<string, number>) => [...paid].filter(([, n]) => n > 1);

function options(extra: Partial<RouterOptions> & Pick<RouterOptions, 'nodes'>): RouterOptions {
  return {
    idempotencySecret: SECRET,
    ledger: new MemoryLedger(),
    transport: undiciTransport({ connectTimeoutMs: 300, readTimeoutMs: 2000 }),
    limiter: createLimiter({ account: { ratePerSecond: 1000, burst: 100 } }),
    retry: { baseMs: 5, capMs: { pos: 20, batch: 20 } },
    lanes: { pos: { default: 1500 }, batch: { default: 5000 } },
    ...extra,
  };
}

describe('exactly once against vendors we do not control (real HTTP)', () => {
  it('a gateway 504 after the processor paid: never sent to the fallback; paid once when the gateway recovers', async () => {
    const paid = new Map<string, number>();
    const p = await node(paid);
    const s = await node(paid);
    p.vendor.gatewayTimeouts = true;
    const router = createRouter(
      options({
        nodes: [
          { name: 'primary', url: p.url },
          { name: 'secondary', url: s.url },
        ],
        // A breaker that opens fast: the old router failed over as soon as it did.
        breakers: createBreakers({
          defaults: { policy: { kind: 'consecutive', threshold: 2 }, openDuration: 50 },
        }),
      }),
    );
    const first = await Promise.all(claims(5).map((c) => router.submit(c, { lane: 'batch' })));
    for (const o of first)
      assert.deepEqual(
        [o.kind, o.kind === 'needs-reconciliation' && o.node],
        ['needs-reconciliation', 'primary'],
      );
    assert.equal(s.vendor.requests.length, 0, 'nothing reached the fallback');
    assert.equal(paid.size, 5, 'the processor paid all five behind its gateway');
    // The gateway recovers; the same claims again: the processor replays its answers.
    p.vendor.gatewayTimeouts = false;
    const again = await Promise.all(claims(5).map((c) => router.submit(c, { lane: 'batch' })));
    for (const o of again) assert.equal(o.kind, 'paid');
    assert.deepEqual(paidTwice(paid), []);
    assert.equal(s.vendor.requests.length, 0);
    await router.close();
  });

  it('kill -9 after failover: the router restarted on its file ledger never pays a claim again', async () => {
    const paid = new Map<string, number>();
    const s = await node(paid);
    const dir = await tempDir();
    const ledgerPath = join(dir, 'ledger.jsonl');
    // Six claims answered, four committed by the fallback and then in flight when the process dies.
    for (let i = 0; i < 6; i++) s.vendor.script.push({ status: 200, body: PAID });
    s.vendor.fallback = { status: 200, body: PAID, commitThen: 'hang' };
    const child = fork(
      fileURLToPath(new URL('./restart.fixture.ts', import.meta.url)),
      [ledgerPath, await refusedUrl(), s.url, '10'],
      {
        execArgv: ['--import', 'tsx'],
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      },
    );
    let answered = 0;
    await new Promise<void>((resolve, reject) => {
      child.on('message', () => {
        if (++answered === 6) resolve();
      });
      child.on('exit', (code) => reject(new Error(`child exited early: ${code}`)));
    });
    // Every claim reached the fallback (the last four hang there): now the process dies.
    if (s.vendor.requests.length < 10)
      await new Promise<void>((resolve) => {
        s.vendor.onRequest = () => {
          if (s.vendor.requests.length >= 10) resolve();
        };
      });
    child.removeAllListeners('exit');
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    assert.equal(paid.size, 10);

    // Restarted with the primary back: the same ten claims are submitted again.
    const p = await node(paid);
    s.vendor.fallback = { status: 200, body: PAID };
    const router = createRouter(
      options({
        nodes: [
          { name: 'primary', url: p.url },
          { name: 'secondary', url: s.url },
        ],
        ledger: await openFileLedger(ledgerPath),
      }),
    );
    const outcomes = await Promise.all(claims(10, 5000).map((c) => router.submit(c, { lane: 'batch' })));
    for (const o of outcomes) assert.equal(o.kind, 'paid');
    assert.equal(p.vendor.requests.length, 0, 'no claim went to the primary');
    assert.deepEqual(paidTwice(paid), []);
    await router.close();
  });

  it('the memory ledger does not survive a restart (why the file ledger exists): the same story pays again', async () => {
    const paid = new Map<string, number>();
    const s = await node(paid);
    const first = createRouter(
      options({
        nodes: [
          { name: 'primary', url: await refusedUrl() },
          { name: 'secondary', url: s.url },
        ],
        retry: { transientRetries: 0, baseMs: 5 },
      }),
    );
    for (const o of await Promise.all(claims(3).map((c) => first.submit(c, { lane: 'batch' }))))
      assert.equal(o.kind, 'paid');
    await first.close();
    const p = await node(paid);
    const second = createRouter(
      options({
        nodes: [
          { name: 'primary', url: p.url },
          { name: 'secondary', url: s.url },
        ],
        ledger: new MemoryLedger(),
      }),
    );
    await Promise.all(claims(3).map((c) => second.submit(c, { lane: 'batch' })));
    assert.equal(paidTwice(paid).length, 3);
    await second.close();
  });

  it('a pos claim cut at its deadline after the vendor paid: needs-reconciliation; its dead letter, stored and resubmitted while the primary is down, never reaches the fallback', async () => {
    const paid = new Map<string, number>();
    const p = await node(paid);
    const s = await node(paid);
    const deadLetters = new MemoryDeadLetterQueue();
    const nodes = [
      { name: 'primary', url: p.url },
      { name: 'secondary', url: s.url },
    ];
    const router = createRouter(
      options({ nodes, deadLetters, lanes: { pos: { default: 300 }, batch: { default: 5000 } } }),
    );
    p.vendor.fallback = { status: 200, body: PAID, commitThen: 2000 };
    const cut = await Promise.all(claims(5).map((c) => router.submit(c)));
    for (const o of cut)
      assert.deepEqual(
        [o.kind, o.kind === 'needs-reconciliation' && o.node],
        ['needs-reconciliation', 'primary'],
      );
    await router.close();
    // The letters go to storage as text and come back: the cardholder survives, and the pin.
    const stored = deadLetters.take().map(serializeDeadLetter);
    assert.equal(stored.length, 5);
    const letters = stored.map(parseDeadLetter);
    assert.equal(letters[0]!.claim.cardholderId.reveal(), 'ZX9900112');
    assert.equal(letters[0]!.pinnedNode, 'primary');
    // Another process, another (empty) ledger, the primary refusing connections: the batch
    // lane resubmits. The pin in the letter keeps every claim off the fallback.
    const down = createRouter(
      options({
        nodes: [
          { name: 'primary', url: await refusedUrl() },
          { name: 'secondary', url: s.url },
        ],
      }),
    );
    const again = await Promise.all(letters.map((l) => down.resubmit(l, { lane: 'batch' })));
    for (const o of again) assert.equal(o.kind, 'needs-reconciliation');
    assert.equal(s.vendor.requests.length, 0, 'nothing reached the fallback');
    assert.deepEqual(paidTwice(paid), []);
    await down.close();
  });

  it('the audit log fails (directory missing): submit resolves, says degraded, alarms, and the records are written when the directory comes back', async () => {
    const paid = new Map<string, number>();
    const p = await node(paid);
    const dir = await tempDir();
    const path = join(dir, 'missing', 'audit.jsonl');
    const alarms: AuditAlarm[] = [];
    let recoveredNow!: () => void;
    const recovered = new Promise<void>((resolve) => {
      recoveredNow = resolve;
    });
    const router = createRouter(
      options({
        nodes: [{ name: 'primary', url: p.url }],
        audit: new JsonlAuditLog(path),
        auditOptions: { retryBaseMs: 20 },
        onEvent: (e) => {
          if (e.type !== 'audit') return;
          alarms.push(e);
          if (e.state === 'recovered') recoveredNow();
        },
      }),
    );
    const o = await router.submit(rawClaim());
    assert.equal(o.kind, 'paid');
    assert.equal(o.auditDegraded, true);
    assert.equal(alarms[0]?.state, 'degraded');
    // A caller that submits again is answered from the ledger: nothing is paid twice.
    assert.equal((await router.submit(rawClaim())).kind, 'paid');
    assert.deepEqual(paidTwice(paid), []);
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'missing'));
    await recovered; // the keeper's retry timer wrote the held records
    const third = await router.submit(rawClaim({ '402-D2': '000999' }));
    assert.equal(third.auditDegraded, undefined);
    await router.close();
    const lines = (await readFile(path, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string });
    assert.equal(
      lines.filter((l) => l.type === 'outcome').length,
      2,
      'the held outcome record and the new one',
    );
  });

  it('a directory removed mid-run: the log opens the file anew, no record goes to the unlinked file', async () => {
    const paid = new Map<string, number>();
    const p = await node(paid);
    const dir = await tempDir();
    const path = join(dir, 'logs', 'audit.jsonl');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'logs'));
    const router = createRouter(
      options({ nodes: [{ name: 'primary', url: p.url }], audit: new JsonlAuditLog(path) }),
    );
    assert.equal((await router.submit(rawClaim({ '402-D2': '1' }))).kind, 'paid');
    await rm(join(dir, 'logs'), { recursive: true });
    await mkdir(join(dir, 'logs'));
    const o = await router.submit(rawClaim({ '402-D2': '2' }));
    assert.equal(o.auditDegraded, undefined);
    await router.close();
    const lines = (await readFile(path, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; correlationId: string });
    assert.ok(lines.some((l) => l.type === 'outcome' && l.correlationId === o.correlationId));
  });

  it('a pos submission that joins the same claim running in the batch lane settles by its own deadline', async () => {
    const paid = new Map<string, number>();
    const p = await node(paid);
    // The vendor holds the batch run's answer until the test releases it, after the pos
    // submission has settled: a pos submission that waited for the batch run would never settle
    // first (only at the batch run's 60 s deadline; the 10 s guard fails it long before).
    let release!: () => void;
    const hold = new Promise<void>((r) => {
      release = r;
    });
    p.vendor.fallback = { status: 200, body: PAID, hold };
    const requested = new Promise<void>((resolve) => {
      p.vendor.onRequest = resolve;
    });
    const router = createRouter(
      options({
        nodes: [{ name: 'primary', url: p.url }],
        lanes: { pos: { default: 200 }, batch: { default: 60_000 } },
      }),
    );
    let batchSettled = false;
    const batch = router.submit(rawClaim(), { lane: 'batch' });
    void batch.then(
      () => {
        batchSettled = true;
      },
      () => {
        batchSettled = true;
      },
    );
    // The batch run owns the claim once its request reached the vendor.
    await requested;
    let guard: NodeJS.Timeout | undefined;
    try {
      const pos = await Promise.race([
        router.submit(rawClaim()),
        new Promise<never>((_, reject) => {
          guard = setTimeout(() => reject(new Error('the pos submission waited for the batch run')), 10_000);
        }),
      ]);
      assert.equal(pos.kind, 'in-flight-elsewhere');
      assert.equal(batchSettled, false, 'the pos submission settled only after the batch run');
    } finally {
      clearTimeout(guard);
      release();
    }
    assert.equal((await batch).kind, 'paid');
    assert.equal(p.vendor.requests.length, 1);
    await router.close();
  });

  it('close() twice: both calls resolve', async () => {
    const p = await node(new Map());
    const router = createRouter(options({ nodes: [{ name: 'primary', url: p.url }] }));
    const pending: Promise<Outcome> = router.submit(rawClaim());
    const a = router.close();
    const b = router.close();
    await Promise.all([a, b, pending]);
  });
});
