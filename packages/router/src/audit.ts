import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { LogSafe } from './phi.js';

/** One decision of the router about one claim. No PHI: keys are HMACs, codes are reject codes. */
export interface AuditRecord {
  readonly at: number;
  readonly correlationId: string;
  /** The idempotency key (an HMAC). */
  readonly claimKey: string;
  /** `attempt`, `decision` or `outcome`. */
  readonly type: 'attempt' | 'decision' | 'outcome';
  readonly attempt?: number;
  readonly node?: string;
  readonly lane?: string;
  readonly verdict?: string;
  readonly status?: number;
  readonly codes?: readonly string[];
  /** What the router did next: `retry`, `failover`, `refresh`, `repair`, `wait`, `done`, … */
  readonly decision?: string;
  readonly waitMs?: number;
  readonly snapshotVersion?: string;
  readonly path?: readonly string[];
  /** On `outcome` records: the outcome kind and its PHI-free fields. */
  readonly outcome?: Readonly<Record<string, unknown>>;
}

/** Where audit records go. `append` of an `outcome` record must be durable before it resolves. */
export interface AuditLog {
  append(record: LogSafe<AuditRecord>): void | Promise<void>;
  close?(): Promise<void>;
}

/** Keeps every record in memory (tests, the simulator). */
export class MemoryAuditLog implements AuditLog {
  readonly records: AuditRecord[] = [];
  append(record: AuditRecord): void {
    this.records.push(record);
  }
}

/**
 * An append-only JSON Lines file. Records are written in order; the file is fsynced at each
 * terminal outcome, so an outcome the router returned survives a crash.
 */
export class JsonlAuditLog implements AuditLog {
  readonly #path: string;
  #handle: Promise<FileHandle> | undefined;
  #chain: Promise<void> = Promise.resolve();
  #pending: string[] = [];

  constructor(path: string) {
    this.#path = path;
  }

  append(record: AuditRecord): void | Promise<void> {
    this.#pending.push(`${JSON.stringify(record)}\n`);
    // Buffered until the next outcome: the caller has nothing to wait for.
    if (record.type !== 'outcome') return;
    return this.#flush();
  }

  /** Appends what is buffered and fsyncs it, after every earlier write. */
  #flush(): Promise<void> {
    const lines = this.#pending.join('');
    this.#pending = [];
    this.#handle ??= open(this.#path, 'a');
    const handle = this.#handle;
    this.#chain = this.#chain.then(async () => {
      const h = await handle;
      await h.appendFile(lines);
      await h.sync();
    });
    return this.#chain;
  }

  async close(): Promise<void> {
    if (this.#pending.length > 0) await this.#flush();
    await this.#chain;
    if (this.#handle) await (await this.#handle).close();
    this.#handle = undefined;
  }
}

export interface ReplayedClaim {
  readonly claimKey: string;
  readonly correlationIds: readonly string[];
  /** The last terminal outcome recorded for the claim. */
  readonly outcome: Readonly<Record<string, unknown>> | undefined;
  readonly attempts: number;
  readonly decisions: readonly string[];
}

/** Rebuilds every claim's outcome from an audit file, by claim key. Corrupt lines are counted, not fatal. */
export async function replayAudit(
  path: string,
): Promise<{ claims: Map<string, ReplayedClaim>; corruptLines: number }> {
  const claims = new Map<
    string,
    {
      claimKey: string;
      correlationIds: string[];
      outcome: Record<string, unknown> | undefined;
      attempts: number;
      decisions: string[];
    }
  >();
  let corruptLines = 0;
  const rl = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  rl.on('line', (line) => {
    if (line.trim() === '') return;
    let r: AuditRecord;
    try {
      r = JSON.parse(line) as AuditRecord;
    } catch {
      corruptLines++;
      return;
    }
    if (typeof r.claimKey !== 'string') {
      corruptLines++;
      return;
    }
    let c = claims.get(r.claimKey);
    if (c === undefined) {
      c = { claimKey: r.claimKey, correlationIds: [], outcome: undefined, attempts: 0, decisions: [] };
      claims.set(r.claimKey, c);
    }
    if (!c.correlationIds.includes(r.correlationId)) c.correlationIds.push(r.correlationId);
    if (r.type === 'attempt') c.attempts++;
    if (r.decision !== undefined) c.decisions.push(r.decision);
    if (r.type === 'outcome' && r.outcome !== undefined) c.outcome = { ...r.outcome };
  });
  await once(rl, 'close');
  return { claims, corruptLines };
}
