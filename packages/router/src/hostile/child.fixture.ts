// Runs child-router.fixture.ts as its own process (to be killed with SIGKILL) and reads its
// JSON lines.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./child-router.fixture.ts', import.meta.url));
const PKG = fileURLToPath(new URL('../..', import.meta.url));

interface Line {
  ready?: boolean;
  batch1?: boolean;
  reason?: string;
  done?: boolean;
  i?: number;
  kind?: string;
  node?: string;
}

export function startChild(config: object): {
  child: ChildProcess;
  lines: Line[];
  next(pred: (l: Line) => boolean): Promise<Line>;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(config)], {
    cwd: PKG,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: Line[] = [];
  const waiters: Array<{ pred: (l: Line) => boolean; resolve: (l: Line) => void }> = [];
  let stderr = '';
  child.stderr?.on('data', (b: Buffer) => {
    stderr += b.toString();
  });
  createInterface({ input: child.stdout! }).on('line', (text) => {
    let l: Line;
    try {
      l = JSON.parse(text) as Line;
    } catch {
      return;
    }
    lines.push(l);
    for (const w of [...waiters])
      if (w.pred(l)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(l);
      }
  });
  const exit = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      if (code !== 0 && code !== null) process.stderr.write(`child stderr:\n${stderr}\n`);
      resolve(code);
    }),
  );
  return {
    child,
    lines,
    exit,
    next(pred) {
      const found = lines.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ pred, resolve }));
    },
  };
}
