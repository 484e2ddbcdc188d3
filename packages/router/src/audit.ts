import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { RouterConfigError } from './errors.js';
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

/**
 * Where audit records go. `append` of an `outcome` record must be durable before it resolves.
 * A rejected `append` kept nothing of the record it was given (the router holds it and appends
 * it again when the log comes back); records it accepted before stay its own.
 */
export interface AuditLog {
  append(record: LogSafe<AuditRecord>): Promise<void>;
  close?(): Promise<void>;
}

const RESOLVED = Promise.resolve();

/** An audit log's close could not write the records it still held; `records` counts them. */
export class AuditUnwrittenError extends Error {
  readonly code = 'RXGATE_AUDIT_UNWRITTEN';
  readonly records: number;
  constructor(records: number, cause: unknown) {
    const why =
      typeof (cause as { code?: unknown })?.code === 'string' ? (cause as { code: string }).code : 'error';
    super(`audit log closed with ${records} record(s) unwritten (${why})`, { cause });
    this.name = 'AuditUnwrittenError';
    this.records = records;
  }
}

/** Options of {@link MemoryAuditLog}. */
export interface MemoryAuditLogOptions {
  /**
   * The most records kept (the latest ones); older ones are counted in `evicted` and let go.
   * Default 10,000. `Infinity` keeps every record: for a test, never for a long-running router.
   */
  readonly capacity?: number;
}

/**
 * Keeps the latest records in memory (tests, tools, the router's default). It is lost with the
 * process: a router that must keep its audit trail passes a {@link JsonlAuditLog}. It is bounded
 * because it is the default: a router left running with it held every record it ever wrote
 * (about 1 KB a claim, half a gigabyte for a pharmacy's day), and paid for it in GC on every claim.
 */
let isMemoryAuditLog: (o: object) => boolean;

/** Whether `log` is a `MemoryAuditLog` itself (a `Proxy` of one is not: its private fields are the target's). */
export function hasMemoryAuditLogFields(log: object): boolean {
  return isMemoryAuditLog(log);
}

export class MemoryAuditLog implements AuditLog {
  readonly #capacity: number;
  #kept: AuditRecord[] = [];
  #evicted = 0;

  static {
    isMemoryAuditLog = (o) => #kept in o;
  }

  constructor(options: MemoryAuditLogOptions = {}) {
    const capacity = options.capacity ?? 10_000;
    if (!(capacity === Infinity || (Number.isInteger(capacity) && capacity >= 1)))
      throw new RouterConfigError('capacity', 'must be a whole number >= 1, or Infinity');
    this.#capacity = capacity;
  }

  /** The records kept, oldest first: the latest `capacity` of those appended. */
  get records(): readonly AuditRecord[] {
    const over = this.#kept.length - this.#capacity;
    if (over > 0) {
      this.#kept = this.#kept.slice(over);
      this.#evicted += over;
    }
    return this.#kept;
  }

  /** Records let go to keep within `capacity`. */
  get evicted(): number {
    return this.#evicted + Math.max(0, this.#kept.length - this.#capacity);
  }

  append(record: AuditRecord): Promise<void> {
    this.#kept.push(record);
    // Trimmed in batches of `capacity`: amortised constant time per record.
    if (this.#kept.length >= 2 * this.#capacity) void this.records;
    return RESOLVED;
  }
}

/**
 * An append-only JSON Lines file. Records are written in order; the file is fsynced at each
 * terminal outcome, so an outcome the router returned survives a crash. Before each write it
 * checks that its open file is still the one at `path` (a directory removed and made again, a
 * log rotated away): if not, it opens `path` anew, so no record goes to an unlinked file. A
 * failed write is not sticky: the next one opens the file again.
 */
export class JsonlAuditLog implements AuditLog {
  readonly #path: string;
  #handle: FileHandle | undefined;
  #chain: Promise<void> = RESOLVED;
  #pending: string[] = [];

  constructor(path: string) {
    this.#path = path;
  }

  append(record: AuditRecord): Promise<void> {
    const line = `${JSON.stringify(record)}\n`;
    // Buffered until the next outcome: the caller has nothing to wait for.
    if (record.type !== 'outcome') {
      this.#pending.push(line);
      return RESOLVED;
    }
    return this.#flush(line);
  }

  /** Appends what is buffered, then `last`, and fsyncs, after every earlier write. */
  #flush(last: string | undefined): Promise<void> {
    const earlier = this.#pending;
    this.#pending = [];
    const run = this.#chain.then(async () => {
      try {
        const h = await this.#current();
        await h.appendFile(earlier.join('') + (last ?? ''));
        await h.sync();
      } catch (e) {
        // Earlier records were accepted: keep them for the next write. The last one is the caller's.
        this.#pending = earlier.concat(this.#pending);
        await this.#drop();
        throw e;
      }
    });
    this.#chain = run.catch(() => undefined);
    return run;
  }

  // The open file, if it is still the file at the path; else the file at the path, opened now.
  async #current(): Promise<FileHandle> {
    if (this.#handle !== undefined) {
      const [mine, there] = await Promise.all([this.#handle.stat(), stat(this.#path).catch(() => undefined)]);
      if (there !== undefined && there.ino === mine.ino && there.dev === mine.dev) return this.#handle;
      await this.#drop();
    }
    this.#handle = await open(this.#path, 'a');
    return this.#handle;
  }

  async #drop(): Promise<void> {
    const h = this.#handle;
    this.#handle = undefined;
    await h?.close().catch(() => undefined);
  }

  /**
   * Writes what is buffered and closes the file. When that last write fails, the records it
   * held are given up and the close rejects with an {@link AuditUnwrittenError} that counts them.
   */
  async close(): Promise<void> {
    await this.#chain;
    const held = this.#pending.length;
    if (held > 0) {
      try {
        await this.#flush(undefined);
      } catch (e) {
        this.#pending = [];
        await this.#drop();
        throw new AuditUnwrittenError(held, e);
      }
    }
    await this.#drop();
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
