// A minimal vendor for the loopback benchmark, in its own process: answers every
// /adjudicate with a paid claim and quota headers.
import { createServer } from 'node:http';

const body = JSON.stringify({
  '112-AN': 'P',
  '505-F5': '5.00',
  '506-F6': '10.34',
  '509-F9': '7.34',
  '503-F3': 'AUTH',
});
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, {
      'content-type': 'application/json',
      'x-ratelimit-limit': '100000',
      'x-ratelimit-remaining': '99999',
      'x-ratelimit-reset': '1',
    });
    res.end(body);
  });
});
server.keepAliveTimeout = 10_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.(typeof address === 'object' && address ? address.port : 0);
});
process.on('disconnect', () => process.exit(0));
