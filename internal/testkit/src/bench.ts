// Small, dependency-free benchmark helpers shared by the packages' `npm run bench`.
// Each measurement runs several rounds and keeps the median, after a warm-up round.

const now = (): bigint => process.hrtime.bigint();

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Nanoseconds per call of `fn` in a tight loop. */
export function nsPerSync(fn: () => unknown, iterations = 2_000_000, rounds = 7): number {
  const results: number[] = [];
  let sink = 0;
  for (let r = 0; r <= rounds; r++) {
    const t0 = now();
    for (let i = 0; i < iterations; i++) if (fn()) sink++;
    const ns = Number(now() - t0) / iterations;
    if (r > 0) results.push(ns);
  }
  if (sink === -1) throw new Error('unreachable: keeps the loop from being optimised away');
  return median(results);
}

/** Nanoseconds per awaited call with `callers` concurrent callers, each awaiting in a loop. */
export async function nsPerAsync(
  fn: () => Promise<unknown>,
  { callers = 16, iterations = 400_000, rounds = 7 } = {},
): Promise<number> {
  const per = Math.ceil(iterations / callers);
  const results: number[] = [];
  for (let r = 0; r <= rounds; r++) {
    const t0 = now();
    await Promise.all(
      Array.from({ length: callers }, async () => {
        for (let i = 0; i < per; i++) await fn();
      }),
    );
    const ns = Number(now() - t0) / (per * callers);
    if (r > 0) results.push(ns);
  }
  return median(results);
}

/** Heap bytes retained by what `build` returns (needs --expose-gc). */
export async function retainedBytes(build: () => unknown | Promise<unknown>): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = await build();
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  // Keep `kept` alive until after the measurement.
  if (kept === Symbol.for('never')) throw new Error('unreachable');
  return after - before;
}

/** Prints a Markdown table. */
export function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map(String));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(headers), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...cells.map(line)].join(
    '\n',
  );
}

export function fmt(x: number, digits = 1): string {
  return x.toFixed(digits);
}
