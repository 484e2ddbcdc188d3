import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename } from 'node:path';

// What the loopback vendor answers, by README example (the test file that imports this): the
// statuses in order, then 200; a 429 comes with `Retry-After: 0`.
const SCRIPTS: Record<string, readonly number[]> = {
  'readme-breaker.test.ts': [503, 503, 503],
  'readme-ratelimit.test.ts': [],
  'readme-retry.test.ts': [429, 429],
  'readme-classifier.test.ts': [503],
  'readme-wrap.test.ts': [429, 503],
  'readme-undici.test.ts': [503, 429],
};
const script = SCRIPTS[basename(process.argv[1] ?? '')];
if (script === undefined) throw new Error(`readme-vendor: no script for ${process.argv[1]}`);

let count = 0;
const server = createServer((_req, res) => {
  const status = script[count++] ?? 200;
  res.writeHead(status, {
    'content-type': 'application/json',
    connection: 'close',
    ...(status === 429 ? { 'retry-after': '0' } : {}),
  });
  res.end(JSON.stringify({ status }));
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
// Ends with the example: no keep-alive, and the listening socket does not hold the process.
server.unref();

/** The loopback vendor of this README example. */
export const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/claims`;
/** Requests it has answered. */
export const hits = (): number => count;
