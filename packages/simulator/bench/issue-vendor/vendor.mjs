// An independent vendor, written from issue #14's text (not from the zoo's code): a 1-second
// sliding window (a log) of RATE requests, X-RateLimit-Limit/Remaining/Reset where Reset is the
// seconds until the oldest request in the window leaves it (STYLE=ceil: whole seconds;
// STYLE=frac: 3 decimals),
// 429 (or 503 when THROTTLE=503) with Retry-After in whole seconds. Pays every claim; counts
// payments by claim content (BIN|PCN|NPI|Rx|fill|DOS). Prints stats on SIGTERM / at /stats.
import http from 'node:http';

const RATE = Number(process.env.RATE ?? 20);
const WINDOW = Number(process.env.WINDOW_MS ?? 1000);
const STYLE = process.env.STYLE ?? 'ceil';
const HEADERS = process.env.HEADERS ?? 'x'; // x | ro (remaining only) | none
const THROTTLE = Number(process.env.THROTTLE ?? 429);
const log = []; // admitted request times
const paid = new Map();
const byKey = new Map();
const paidAt = [];
let requests = 0,
  throttled = 0;
// TRACE=<file>: one line a request (arrival ms, status, requests in the window after it, and
// the age in ms of the oldest of them).
const trace = process.env.TRACE ? [] : undefined;
const quotaHeaders = (now) => {
  while (log.length && log[0] <= now - WINDOW) log.shift();
  const rem = Math.max(0, RATE - log.length);
  if (HEADERS === 'none') return {};
  const h = { 'x-ratelimit-limit': String(RATE), 'x-ratelimit-remaining': String(rem) };
  if (HEADERS === 'x') {
    const until = log.length ? (log[0] + WINDOW - now) / 1000 : 0;
    h['x-ratelimit-reset'] = STYLE === 'ceil' ? String(Math.ceil(until)) : until.toFixed(3);
  }
  return h;
};
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const now = Date.now();
    if (req.url.endsWith('/stats')) {
      res.end(JSON.stringify(stats()));
      return;
    }
    requests++;
    while (log.length && log[0] <= now - WINDOW) log.shift();
    if (log.length >= RATE) {
      throttled++;
      trace?.push(`${now} 429 ${log.length} ${now - log[0]}`);
      const wait = Math.ceil((log[0] + WINDOW - now) / 1000);
      res.writeHead(THROTTLE, {
        'content-type': 'application/json',
        'retry-after': String(Math.max(1, wait)),
        ...quotaHeaders(now),
      });
      res.end('{"error":"rate_limited"}');
      return;
    }
    log.push(now);
    trace?.push(`${now} 200 ${log.length} ${now - log[0]}`);
    const key = req.headers['idempotency-key'];
    if (byKey.has(key)) {
      res.writeHead(200, { 'content-type': 'application/json', ...quotaHeaders(now) });
      res.end(byKey.get(key));
      return;
    }
    let c;
    try {
      c = JSON.parse(body);
    } catch {
      res.writeHead(400);
      res.end('{"error":"invalid"}');
      return;
    }
    const id = [c['101-A1'], c['104-A4'], c['201-B1'], c['402-D2'], c['403-D3'], c['401-D1']].join('|');
    paid.set(id, (paid.get(id) ?? 0) + 1);
    paidAt.push(now);
    const answer = JSON.stringify({
      '112-AN': 'P',
      '505-F5': '5.00',
      '506-F6': c['409-D9'],
      '509-F9': '0.00',
      '503-F3': `A${paidAt.length}`,
    });
    byKey.set(key, answer);
    res.writeHead(200, { 'content-type': 'application/json', ...quotaHeaders(now) });
    res.end(answer);
  });
});
const stats = () => {
  const t0 = paidAt[0],
    t1 = paidAt[paidAt.length - 1];
  // Steady state: from 5 s after the first payment to 2 s before the last.
  const a = t0 + 5000,
    b = t1 - 2000;
  const inWin = paidAt.filter((t) => t >= a && t < b).length;
  return {
    requests,
    throttled,
    throttledPct: +((100 * throttled) / requests).toFixed(2),
    paid: paidAt.length,
    twice: [...paid.values()].filter((n) => n > 1).length,
    steadyPerSec: +(inWin / ((b - a) / 1000)).toFixed(2),
    steadyPct: +((100 * inWin) / ((b - a) / 1000) / ((RATE * 1000) / WINDOW)).toFixed(1),
    spanS: (t1 - t0) / 1000,
    perSec: Array.from(
      { length: Math.ceil((t1 - t0) / 1000) },
      (_, i) => paidAt.filter((t) => t >= t0 + i * 1000 && t < t0 + (i + 1) * 1000).length,
    ).join(' '),
  };
};
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log(server.address().port));
process.on('SIGTERM', async () => {
  if (trace) (await import('node:fs')).writeFileSync(process.env.TRACE, `${trace.join('\n')}\n`);
  console.error(JSON.stringify(stats()));
  process.exit(0);
});
