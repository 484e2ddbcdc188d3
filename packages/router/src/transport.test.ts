// transport.ts on real sockets: what it answers, and above all which failures it says left
// (`sent`: the vendor may have committed) and which never did (`not-sent`: safe elsewhere).
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { isTransportError, TransportError } from './errors.js';
import { BODY_MAX_BYTES, functionTransport, undiciTransport, type WireRequest } from './transport.js';

const REQUEST: WireRequest = {
  method: 'POST',
  path: '/adjudicate',
  headers: { 'content-type': 'application/json', 'idempotency-key': 'rx1_k' },
  body: '{"103-A3":"B1"}',
};
const never = { aborted: false, addEventListener() {}, removeEventListener() {} };

const servers: Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function failure(p: Promise<unknown>): Promise<TransportError> {
  try {
    await p;
  } catch (e) {
    assert.ok(isTransportError(e), `not a TransportError: ${String(e)}`);
    return e as TransportError;
  }
  assert.fail('answered');
}

describe('undiciTransport', () => {
  it('sends method, path under the base URL, headers and body; returns status, headers and body text', async () => {
    let seen: { method?: string | undefined; url?: string | undefined; key?: string; body: string } = {
      body: '',
    };
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c;
      });
      req.on('end', () => {
        seen = { method: req.method, url: req.url, key: req.headers['idempotency-key'] as string, body };
        res.writeHead(429, { 'retry-after': '2', 'content-type': 'application/json' }).end('{"a":1}');
      });
    });
    const t = undiciTransport();
    const r = await t.send({ name: 'p', url: `${url}/v1/` }, REQUEST, never);
    assert.deepEqual(seen, { method: 'POST', url: '/v1/adjudicate', key: 'rx1_k', body: REQUEST.body });
    assert.equal(r.status, 429);
    assert.equal(r.headers['retry-after'], '2');
    assert.equal(r.body, '{"a":1}');
    await t.close();
  });

  it('a refused connection never left: not-sent, ECONNREFUSED', async () => {
    const url = await serve(() => {});
    servers.pop()!.close();
    const t = undiciTransport({ connectTimeoutMs: 500 });
    const e = await failure(t.send({ name: 'p', url }, REQUEST, never));
    assert.deepEqual([e.phase, e.transportCode], ['not-sent', 'ECONNREFUSED']);
    await t.close();
  });

  it('a name that does not resolve never left: not-sent', async () => {
    const t = undiciTransport({ connectTimeoutMs: 2000 });
    const e = await failure(t.send({ name: 'p', url: 'http://rxgate-vendor.invalid' }, REQUEST, never));
    assert.equal(e.phase, 'not-sent', e.transportCode);
    assert.ok(
      ['ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT'].includes(e.transportCode),
      e.transportCode,
    );
    await t.close();
  });

  it('no answer within the read timeout, after the request arrived: sent (the vendor may have paid)', async () => {
    let arrived = false;
    const url = await serve((req) => {
      req.resume();
      arrived = true;
    });
    const t = undiciTransport({ readTimeoutMs: 100 });
    const e = await failure(t.send({ name: 'p', url }, REQUEST, never));
    assert.equal(arrived, true);
    assert.equal(e.phase, 'sent');
    assert.equal(e.transportCode, 'UND_ERR_HEADERS_TIMEOUT');
    await t.close();
  });

  it('a connection reset after the request arrived: sent', async () => {
    const url = await serve((req) => {
      req.on('data', () => {});
      req.on('end', () => req.socket.destroy());
    });
    const t = undiciTransport();
    const e = await failure(t.send({ name: 'p', url }, REQUEST, never));
    assert.equal(e.phase, 'sent', e.transportCode);
    await t.close();
  });

  it('an abort at the deadline while the vendor holds the request: sent', async () => {
    const controller = new AbortController();
    // The deadline comes once the whole request has reached the vendor, which holds it: the
    // abort follows the delivery by construction (a 50 ms timer raced it on a loaded machine).
    const url = await serve((req) => {
      req.on('end', () => controller.abort());
      req.resume();
    });
    const t = undiciTransport({ readTimeoutMs: 10_000 });
    const e = await failure(t.send({ name: 'p', url }, REQUEST, controller.signal));
    assert.equal(e.phase, 'sent', e.transportCode);
    await t.close();
  });
});

describe('undiciTransport, bodies beyond what is read', () => {
  it('reads at most BODY_MAX_BYTES of an answer, then lets the connection go', async () => {
    // A vendor (or a proxy gone wrong) streaming a body of tens of megabytes, or without end:
    // read whole, it takes memory without bound (and holds the claim until its deadline).
    // Stopped past the bound, the text is longer than the classifier reads (1,000,000
    // characters): a malformed body.
    let closed = false;
    let written = 0;
    const url = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      // 40 MB, then the JSON's end: read whole, that is a 40 MB answer.
      const more = (): void => {
        while (!closed && written < 40 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return;
        }
        if (!closed) res.end('"}');
      };
      res.on('drain', more);
      res.on('close', () => {
        closed = true;
      });
      res.write('{"112-AN":"P","x":"');
      more();
    });
    const t = undiciTransport();
    const r = await t.send({ name: 'p', url }, REQUEST, never);
    assert.equal(r.status, 200);
    assert.ok(r.body.length > 1_000_000, `body of ${r.body.length}`);
    assert.ok(
      Buffer.byteLength(r.body) <= BODY_MAX_BYTES + 64 * 1024,
      `body of ${Buffer.byteLength(r.body)} bytes`,
    );
    await new Promise((done) => setImmediate(done));
    await t.close();
    assert.ok(
      written < 40 * 1024 * 1024,
      `the vendor wrote ${written} bytes: the answer was read to its end`,
    );
  });
});

describe('functionTransport', () => {
  it('passes the node, the request and the signal through, and its errors unchanged', async () => {
    const calls: string[] = [];
    const lost = new TransportError('sent', 'ECONNRESET');
    const t = functionTransport((node, request, signal) => {
      calls.push(`${node.name} ${request.path} ${signal === never}`);
      if (node.name === 'lost') throw lost;
      return { status: 200, headers: {}, body: 'ok' };
    });
    assert.equal((await t.send({ name: 'p', url: 'x' }, REQUEST, never)).body, 'ok');
    await assert.rejects(t.send({ name: 'lost', url: 'x' }, REQUEST, never), (e) => e === lost);
    assert.deepEqual(calls, ['p /adjudicate true', 'lost /adjudicate true']);
    await t.close();
  });
});
