// Instructions per call of one part of a claim's path, for callgrind (bench/parts.ts times the
// same parts in µs):
//   for n in 2000 22000; do valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//     node --predictable --predictable-gc-schedule --hash-seed=1 --random-seed=1 \
//     bench/parts-instructions.mjs ../.. key $n; done
// then (I(22000) - I(2000)) / 20000. Parts: parse, key, body. The first argument is the
// repository root to load (another checkout's, to compare builds).
const [root = '../..', part = 'key', nStr = '2000'] = process.argv.slice(2);
const n = Number(nStr);
const at = (p) => new URL(`${root}/packages/${p}/dist/index.js`, `file://${process.cwd()}/`).href;
const { idempotencyKeyer, parseClaim, wireBody } = await import(at('router'));
const { raw } = await import('./claim.mjs');
const keyOf = idempotencyKeyer('bench-secret-0123456789-abcdefghijklmnop');
const claims = part === 'parse' ? undefined : Array.from({ length: 64 }, (_, i) => parseClaim(raw(i)));
let sink = 0;
for (let i = 0; i < n; i++) {
  if (part === 'parse') sink += parseClaim(raw(i)).fillNumber;
  else if (part === 'key') sink += keyOf(claims[i & 63]).length;
  else sink += wireBody(claims[i & 63]).length;
}
if (sink < 0) console.log(sink);
