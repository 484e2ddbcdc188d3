import { type FileHandle, mkdir, open, readFile, rename, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * An append-only log of text lines, durable when `append` resolves: what a
 * {@link JournalLedger} writes ahead of every send. {@link FileJournal} keeps it in a file;
 * {@link MemoryJournal} in memory (a restart of the router in the same process: tests and the
 * simulator).
 */
export interface Journal {
  /** Every line appended (or rewritten) before, in order. */
  read(): Promise<string[]>;
  /** Appends lines (each without its newline); resolves once they are durable. */
  append(lines: readonly string[]): Promise<void>;
  /** Replaces the whole journal with `lines`, atomically: a crash leaves the old or the new. */
  rewrite(lines: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The journal's file is no longer the one at its path (removed, moved away, its directory
 * deleted): what was appended to it since is not durable where a restart will look. The
 * {@link JournalLedger} answers it by writing its whole state to a new file at the path.
 */
export class JournalLostError extends Error {
  readonly code = 'RXGATE_JOURNAL_LOST';
  constructor(path: string) {
    super(`the journal file is no longer at ${path}`);
    this.name = 'JournalLostError';
  }
}

/** Whether `e` is a {@link JournalLostError} (across copies of this package). */
export function isJournalLost(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === 'RXGATE_JOURNAL_LOST';
}

/** A journal in memory: it outlives the routers built on it, not the process. */
export class MemoryJournal implements Journal {
  #lines: string[] = [];
  read(): Promise<string[]> {
    return Promise.resolve(this.#lines.slice());
  }
  append(lines: readonly string[]): Promise<void> {
    for (const l of lines) this.#lines.push(l);
    return Promise.resolve();
  }
  rewrite(lines: readonly string[]): Promise<void> {
    this.#lines = lines.slice();
    return Promise.resolve();
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
  /** Lines held. */
  get length(): number {
    return this.#lines.length;
  }
}

/**
 * A journal in one file, JSON lines: appends are grouped (every line that arrives while a
 * write is under way goes out in the next write) and `fdatasync`ed before they resolve; a
 * rewrite goes to a temporary file, is synced, renamed over the journal, and the directory
 * synced. A torn last line (a crash mid-write) is dropped at read.
 *
 * After every sync it checks that the file it wrote is still the one at the path (same inode,
 * and a file it opens again holds what it wrote before): if the file was removed, moved away,
 * or its directory deleted, the append rejects with {@link JournalLostError} instead of
 * acknowledging lines a restart would never read.
 */
export class FileJournal implements Journal {
  readonly #path: string;
  #handle: Promise<FileHandle> | undefined;
  #pending: string[] = [];
  #waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];
  #writing: Promise<void> | undefined;
  #rewriting: Promise<void> | undefined;
  // The write and sync under way, if any: a rewrite waits for it (and only for it).
  #batch: Promise<void> | undefined;
  // The file this journal owns (inode, and the bytes it holds), once known: a file found at
  // the path that is not it (a new empty one, where the directory was deleted) is a lost journal.
  #ino: number | undefined;
  #size = 0;

  constructor(path: string) {
    this.#path = path;
  }

  async read(): Promise<string[]> {
    let text: string;
    try {
      text = await readFile(this.#path, 'utf8');
      const st = await stat(this.#path);
      this.#ino = st.ino;
      this.#size = st.size;
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') return [];
      throw e;
    }
    const lines = text.split('\n');
    // The part after the last newline was never acknowledged: a torn write.
    lines.pop();
    return lines.filter((l) => l !== '');
  }

  append(lines: readonly string[]): Promise<void> {
    for (const l of lines) this.#pending.push(l);
    const done = new Promise<void>((resolve, reject) => this.#waiters.push({ resolve, reject }));
    this.#writing ??= this.#drain();
    return done;
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      // Lines that arrive during a rewrite go into the new file, after it.
      if (this.#rewriting !== undefined) await this.#rewriting.catch(() => undefined);
      const lines = this.#pending;
      const waiters = this.#waiters;
      this.#pending = [];
      this.#waiters = [];
      const batch = this.#write(lines);
      this.#batch = batch;
      try {
        await batch;
        for (const w of waiters) w.resolve();
      } catch (e) {
        // The next append opens the file again (a directory that came back, a new disk).
        const h = this.#handle;
        this.#handle = undefined;
        h?.then((x) => x.close()).catch(() => undefined);
        for (const w of waiters) w.reject(e);
      } finally {
        this.#batch = undefined;
      }
    }
    this.#writing = undefined;
  }

  async #write(lines: string[]): Promise<void> {
    const h = await this.#open();
    const text = `${lines.join('\n')}\n`;
    await h.appendFile(text);
    await h.datasync();
    const [mine, there] = await Promise.all([h.stat(), stat(this.#path).catch(() => undefined)]);
    if (there === undefined || there.ino !== mine.ino || there.dev !== mine.dev)
      throw new JournalLostError(this.#path);
    this.#size += Buffer.byteLength(text);
  }

  #open(): Promise<FileHandle> {
    this.#handle ??= (async () => {
      await mkdir(dirname(this.#path), { recursive: true });
      const h = await open(this.#path, 'a');
      const st = await h.stat();
      if (this.#ino !== undefined && (st.ino !== this.#ino || st.size !== this.#size)) {
        await h.close();
        throw new JournalLostError(this.#path);
      }
      this.#ino = st.ino;
      this.#size = st.size;
      return h;
    })();
    const h = this.#handle;
    h.catch(() => {
      if (this.#handle === h) this.#handle = undefined;
    });
    return h;
  }

  rewrite(lines: readonly string[]): Promise<void> {
    const p = this.#rewrite(lines);
    this.#rewriting = p;
    const clear = () => {
      if (this.#rewriting === p) this.#rewriting = undefined;
    };
    p.then(clear, clear);
    return p;
  }

  async #rewrite(lines: readonly string[]): Promise<void> {
    const tmp = `${this.#path}.compact`;
    await mkdir(dirname(this.#path), { recursive: true });
    const t = await open(tmp, 'w');
    try {
      await t.writeFile(lines.length === 0 ? '' : `${lines.join('\n')}\n`);
      await t.sync();
    } finally {
      await t.close();
    }
    // The write under way finishes first: the rename swaps the file under it.
    await this.#batch?.catch(() => undefined);
    const old = this.#handle;
    this.#handle = undefined;
    if (old !== undefined) await (await old.catch(() => undefined))?.close();
    await rename(tmp, this.#path);
    const st = await stat(this.#path);
    this.#ino = st.ino;
    this.#size = st.size;
    const dir = await open(dirname(this.#path), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }

  async close(): Promise<void> {
    await this.#writing;
    const h = this.#handle;
    this.#handle = undefined;
    if (h !== undefined) await (await h.catch(() => undefined))?.close();
  }
}
