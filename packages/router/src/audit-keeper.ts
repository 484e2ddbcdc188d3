import type { Clock, TimerHandle } from '@rxgate/ratelimit';
import { type AuditLog, type AuditRecord, hasMemoryAuditLogFields, MemoryAuditLog } from './audit.js';
import { exactly } from './exact-class.js';
import type { LogSafe } from './phi.js';

const FALSE = Promise.resolve(false);
const TRUE = Promise.resolve(true);
const TRUE_FN = () => true;

/** What the keeper tells the router when the audit log fails, recovers, or overflows. */
export type AuditAlarm =
  | { readonly type: 'audit'; readonly state: 'degraded'; readonly backlog: number; readonly error: string }
  | { readonly type: 'audit'; readonly state: 'recovered'; readonly written: number }
  | { readonly type: 'audit'; readonly state: 'dropped'; readonly records: number };

/**
 * Stands between the router and its audit log: an append never rejects. A record the log
 * refuses is held, in order, with every record after it, and written again on a timer (growing
 * from `retryBaseMs` to 30 s) and at every later append; the first failure raises a
 * `degraded` alarm, the drain a `recovered` one. While records are held, `degraded` is true,
 * and past `backlogLimit` the router refuses new claims before sending anything.
 */
export class AuditKeeper {
  readonly #log: AuditLog;
  readonly #clock: Clock;
  readonly #limit: number;
  readonly #baseMs: number;
  readonly #alarm: (a: AuditAlarm) => void;
  /**
   * The log is exactly a `MemoryAuditLog`: its append has kept the record when it returns and
   * never fails, so it is not waited for (a subclass may write elsewhere: it is waited for).
   */
  readonly #atOnce: boolean;
  #backlog: Array<LogSafe<AuditRecord>> = [];
  #draining: Promise<void> | undefined;
  #timer: TimerHandle | undefined;
  #delayMs: number;
  #closed = false;

  constructor(log: AuditLog, clock: Clock, limit: number, baseMs: number, alarm: (a: AuditAlarm) => void) {
    this.#log = log;
    this.#clock = clock;
    this.#limit = limit;
    this.#baseMs = baseMs;
    this.#delayMs = baseMs;
    this.#alarm = alarm;
    this.#atOnce = exactly(log, MemoryAuditLog.prototype, ['append']) && hasMemoryAuditLogFields(log);
  }

  /** Records held, not yet written. */
  get backlog(): number {
    return this.#backlog.length;
  }

  get degraded(): boolean {
    return this.#backlog.length > 0;
  }

  /** Past the backlog limit: no new claim may start. */
  get full(): boolean {
    return this.#backlog.length > 0 && this.#backlog.length >= this.#limit;
  }

  /** Appends `record`; resolves true when it is written, false when it is held for later. Never rejects. */
  append(record: LogSafe<AuditRecord>): Promise<boolean> {
    const now = this.appendAtOnce(record);
    if (now !== undefined) return now ? TRUE : FALSE;
    let written: Promise<void>;
    try {
      written = this.#log.append(record);
    } catch (e) {
      return Promise.resolve(this.#failed(record, e));
    }
    return written.then(TRUE_FN, (e: unknown) => this.#failed(record, e));
  }

  /**
   * {@link append} when its answer is known at once: true when written (the memory log), false
   * when held behind earlier records; undefined when the log must be waited for (then nothing
   * was done: call `append`).
   */
  appendAtOnce(record: LogSafe<AuditRecord>): boolean | undefined {
    if (this.#backlog.length > 0 || this.#draining !== undefined) {
      this.#backlog.push(record);
      this.#drainSoon();
      return false;
    }
    if (!this.#atOnce) return undefined;
    void this.#log.append(record);
    return true;
  }

  #failed(record: LogSafe<AuditRecord>, e: unknown): boolean {
    this.#backlog.push(record);
    if (this.#backlog.length === 1) this.#raise(e);
    this.#schedule();
    return false;
  }

  /** A record that cannot be held (the backlog is full): counted out loudly, never silently. */
  drop(count = 1): void {
    this.#alarm({ type: 'audit', state: 'dropped', records: count });
  }

  #raise(e: unknown): void {
    const error =
      typeof (e as { code?: unknown })?.code === 'string' ? (e as { code: string }).code : 'error';
    this.#alarm({ type: 'audit', state: 'degraded', backlog: this.#backlog.length, error });
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#closed) return;
    const ms = this.#delayMs;
    this.#delayMs = Math.min(30_000, this.#delayMs * 2);
    this.#timer = this.#clock.setTimer(ms, () => {
      this.#timer = undefined;
      this.#drainSoon();
    });
  }

  #drainSoon(): void {
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = undefined;
    });
  }

  async #drain(): Promise<void> {
    let written = 0;
    while (this.#backlog.length > 0) {
      try {
        await this.#log.append(this.#backlog[0]!);
      } catch {
        this.#schedule();
        return;
      }
      this.#backlog.shift();
      written++;
    }
    this.#delayMs = this.#baseMs;
    this.#timer?.cancel();
    this.#timer = undefined;
    if (written > 0) this.#alarm({ type: 'audit', state: 'recovered', written });
  }

  /** Tries once more to write what is held; then stops retrying. Resolves to the records still held. */
  async close(): Promise<number> {
    await this.#draining;
    if (this.#backlog.length > 0) await this.#drain();
    this.#closed = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    if (this.#backlog.length > 0) this.drop(this.#backlog.length);
    return this.#backlog.length;
  }
}
