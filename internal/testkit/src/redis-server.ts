// Starts a real redis-server for a test: a free loopback port, its own data directory,
// stopped (and the directory removed) after. Where the binary is missing the caller skips
// loudly; under CI a missing binary is an error, so CI never skips Redis tests.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGKILL when `crash`), keeping port and directory. */
  stop(crash?: boolean): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

/** Whether redis-server can run here; under CI its absence is a failure, not a skip. */
export function redisAvailable(): boolean {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).status === 0;
  if (!found && process.env.CI)
    throw new Error(
      'redis-server is missing under CI: .ci/run must install it (apt-get install -y redis-server)',
    );
  if (!found)
    process.stderr.write(
      '\n!!! redis-server not found: the Redis tests are SKIPPED (apt-get install redis-server)\n\n',
    );
  return found;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export async function startRedis(): Promise<RedisServer> {
  // freePort() closes the port before redis-server binds it; another process may take it in
  // between, so a start that finds the address in use tries again on a new port.
  let port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'rxgate-redis-'));
  let child: ChildProcess | undefined;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const c = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'no',
          '--loglevel',
          'notice',
        ],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      child = c;
      let out = '';
      const onData = (b: Buffer) => {
        out += b.toString();
        if (out.includes('Ready to accept connections')) {
          c.stdout?.off('data', onData);
          resolve();
        }
      };
      c.stdout?.on('data', onData);
      c.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out.slice(-500)}`)));
    });
  const stop = (crash = false) =>
    new Promise<void>((resolve) => {
      const c = child;
      child = undefined;
      if (c === undefined || c.exitCode !== null) {
        resolve();
        return;
      }
      c.removeAllListeners('exit');
      c.once('exit', () => resolve());
      c.kill(crash ? 'SIGKILL' : 'SIGTERM');
    });
  for (let tries = 1; ; tries++) {
    try {
      await start();
      break;
    } catch (e) {
      if (tries >= 5 || !/Address already in use|EADDRINUSE/i.test((e as Error).message)) throw e;
      port = await freePort();
    }
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    close: async () => {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
