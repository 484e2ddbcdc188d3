// Serves msw handlers on a loopback node:http server through msw's getResponse, so the
// router's undici Pool talks real HTTP to them (msw cannot intercept undici's own Pool).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getResponse, type RequestHandler } from 'msw';

export interface LoopbackServer {
  readonly url: string;
  use(...handlers: RequestHandler[]): void;
  reset(...handlers: RequestHandler[]): void;
  close(): Promise<void>;
}

export async function serve(...initial: RequestHandler[]): Promise<LoopbackServer> {
  let handlers = [...initial];
  const server = createServer(async (req, res) => {
    try {
      const request = await toRequest(req, `http://${req.headers.host}`);
      const response = await getResponse(handlers, request);
      if (response === undefined) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('no handler');
        return;
      }
      if (response.type === 'error') {
        // HttpResponse.error(): a network error, acted out as a reset.
        req.socket.destroy();
        return;
      }
      const headers: Record<string, string> = {};
      response.headers.forEach((v, k) => {
        headers[k] = v;
      });
      res.writeHead(response.status, headers).end(Buffer.from(await response.arrayBuffer()));
    } catch {
      res.writeHead(500).end();
    }
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    use: (...h) => {
      handlers = [...h, ...handlers];
    },
    reset: (...h) => {
      handlers = [...h];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function toRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    for (const value of Array.isArray(v) ? v : [v]) headers.append(k, value);
  }
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  return new Request(new URL(req.url ?? '/', origin), {
    method: req.method ?? 'GET',
    headers,
    ...(body ? { body } : {}),
  });
}
