// npm run bench -w @rxgate/classifier — classifications per second on one core.
import { fmt, nsPerSync, table } from '@rxgate/testkit';
import { classify } from '../src/index.js';

const now = Date.parse('2026-11-30T12:00:00Z');
const paid = {
  status: 200,
  headers: {
    'content-type': 'application/json',
    'x-ratelimit-limit': '600',
    'x-ratelimit-remaining': '412',
    'x-ratelimit-reset': '37',
  },
  body: { '112-AN': 'P', '505-F5': '5.00', '506-F6': '10.34', '509-F9': '7.34', '503-F3': 'AUTH123' },
};
const paidBare = { status: 200, headers: { 'content-type': 'application/json' }, body: paid.body };
const throttled = {
  status: 429,
  headers: {
    'retry-after': '2',
    'x-ratelimit-limit': '600',
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': '2',
    'ratelimit-policy': '"default";q=600;w=60',
    ratelimit: '"default";r=0;t=2',
  },
  body: '',
};
const rejected = { status: 200, headers: {}, body: { '112-AN': 'R', '511-FB': ['92', '79'] } };

const rows: Array<[string, number]> = [
  [
    'paid 200, no quota headers',
    nsPerSync(() => classify(paidBare, { now }).kind === 'adjudicated', 500_000),
  ],
  ['paid 200 with X-RateLimit-*', nsPerSync(() => classify(paid, { now }).kind === 'adjudicated', 500_000)],
  [
    '429 with Retry-After, X-RateLimit-* and IETF RateLimit',
    nsPerSync(() => classify(throttled, { now }).kind === 'throttled', 500_000),
  ],
  ['200 rejected 92 + 79', nsPerSync(() => classify(rejected, { now }).kind === 'terminal-reject', 500_000)],
];
console.log(`# @rxgate/classifier benchmark (node ${process.version}, one core)\n`);
console.log(
  table(
    ['input', 'ns/classify', 'classifications/s'],
    rows.map(([n, ns]) => [n, fmt(ns), Math.round(1e9 / ns).toLocaleString('en')]),
  ),
);
