import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { delay, getResponse, HttpResponse, http, type RequestHandler } from 'msw';
import type { NodeName, VendorModel } from './vendor-model.js';

/**
 * The vendor model as msw handlers: the JSON contract's `/oauth/token` and `/adjudicate` on
 * `base`. A refused or reset connection is `HttpResponse.error()`; a hang never resolves.
 */
export function vendorHandlers(model: VendorModel, node: NodeName, base: string): RequestHandler[] {
  const handle = async (request: Request) => {
    const headers: Record<string, string> = {};
    request.headers.forEach((v, k) => {
      headers[k] = v;
    });
    const action = model.handle(node, {
      path: new URL(request.url).pathname,
      headers,
      body: await request.text(),
    });
    switch (action.kind) {
      case 'respond':
        await delay(action.delayMs);
        return new HttpResponse(action.body, { status: action.status, headers: action.headers });
      case 'refuse':
      case 'reset':
        if (action.kind === 'reset') await delay(action.delayMs);
        return HttpResponse.error();
      case 'hang':
        await delay('infinite');
        return HttpResponse.error();
    }
  };
  return [
    http.post(`${base}/oauth/token`, ({ request }) => handle(request)),
    http.post(`${base}/adjudicate`, ({ request }) => handle(request)),
  ];
}

export interface HandlerServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves msw handlers on a loopback `node:http` server through msw's `getResponse`, so a real
 * undici client (which msw cannot intercept) talks real HTTP to them.
 */
export async function serveHandlers(
  make: (base: string) => RequestHandler[],
  host = '127.0.0.1',
): Promise<HandlerServer> {
  let handlers: RequestHandler[] = [];
  const server = createServer(async (req, res) => {
    try {
      const response = await getResponse(handlers, await toRequest(req, `http://${req.headers.host}`));
      if (response === undefined) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
        return;
      }
      if (response.type === 'error') {
        req.socket.destroy();
        return;
      }
      const headers: Record<string, string> = {};
      response.headers.forEach((v, k) => {
        headers[k] = v;
      });
      res.writeHead(response.status, headers).end(Buffer.from(await response.arrayBuffer()));
    } catch {
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://${host}:${port}`;
  handlers = make(url);
  return {
    url,
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
