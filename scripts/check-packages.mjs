#!/usr/bin/env node
// `npm run check:packages`: packs every published package as `npm publish` would (its prepack
// builds it first), then checks the tarball a consumer would get, and fails on any finding:
//   - publint --strict (package.json against the files shipped);
//   - @arethetypeswrong/cli --profile esm-only (types resolve for every entry point; we ship
//     ESM only, so the CommonJS resolutions are not judged);
//   - what neither of them looks at: the LICENSE (the root one, unchanged), no tests, fixtures
//     or test support in it, source maps that carry their sources, no @internal in the types,
//     repository/homepage/bugs, README links that work on the registry (absolute, or to a file
//     in the tarball), the README's "ESM only" line, and require() of every entry point.
// `--only <name>` checks one package; `--keep` leaves the tarballs in the printed directory.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const keep = args.includes('--keep');
const ESM_LINE = 'ESM only, Node ≥ 20.19 (on Node 20.19+ `require()` of ESM works';
const license = readFileSync(join(root, 'LICENSE'), 'utf8');

const packages = readdirSync(join(root, 'packages'))
  .map((dir) => join(root, 'packages', dir))
  .filter((dir) => statSync(join(dir, 'package.json'), { throwIfNoEntry: false }))
  .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
  .filter(({ pkg }) => !pkg.private && (only === undefined || pkg.name.endsWith(only)));
if (packages.length === 0) throw new Error(`no package matches ${only}`);

const out = mkdtempSync(join(tmpdir(), 'rxgate-packs-'));
const failures = [];
for (const { dir, pkg } of packages) {
  const findings = [];
  const stdout = execFileSync('npm', ['pack', '--json', '--pack-destination', out], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
  });
  // The prepack's own output comes first on stdout; npm's JSON last.
  const packed = JSON.parse(stdout.slice(stdout.search(/^\[$/m)))[0];
  const tarball = join(out, packed.filename);
  const unpacked = join(out, pkg.name.replace('/', '+'));
  execFileSync('mkdir', ['-p', unpacked]);
  execFileSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1']);
  const files = packed.files.map((f) => f.path);
  const shipped = new Set(files);
  const read = (f) => readFileSync(join(unpacked, f), 'utf8');

  const publint = spawnSync(bin('publint'), ['run', tarball, '--strict'], { encoding: 'utf8' });
  if (publint.status !== 0 || !publint.stdout.includes('All good!'))
    findings.push(`publint --strict:\n${publint.stdout}${publint.stderr}`);
  const attw = spawnSync(bin('attw'), [tarball, '--profile', 'esm-only', '--format', 'ascii'], {
    encoding: 'utf8',
  });
  if (attw.status !== 0) findings.push(`attw --profile esm-only:\n${attw.stdout}${attw.stderr}`);

  if (!shipped.has('LICENSE')) findings.push('no LICENSE in the tarball');
  else if (read('LICENSE') !== license) findings.push('LICENSE differs from the root LICENSE');
  if (!pkg.files?.includes('LICENSE')) findings.push('"files" does not name LICENSE');
  for (const f of files)
    if (/(^|\/)(test-support|__tests__)\/|\.(test|spec|fixture)\.[cm]?[jt]s/.test(f))
      findings.push(`test code shipped: ${f}`);
  if (!shipped.has('dist/index.js')) findings.push('no dist/index.js: nothing was built before pack');
  for (const f of files.filter((f) => f.endsWith('.map'))) {
    const map = JSON.parse(read(f));
    map.sources.forEach((source, i) => {
      const target = relative(unpacked, resolve(dirname(join(unpacked, f)), map.sourceRoot ?? '', source));
      if (typeof map.sourcesContent?.[i] !== 'string' && !shipped.has(target))
        findings.push(`${f} points at ${source}, which is not shipped and not inlined`);
    });
  }
  for (const f of files.filter((f) => /\.d\.[cm]?ts$/.test(f)))
    if (read(f).includes('@internal')) findings.push(`${f} declares @internal members (stripInternal)`);
  if (!pkg.repository?.url || !pkg.repository?.directory) findings.push('no repository url + directory');
  if (!pkg.homepage) findings.push('no homepage');
  if (!pkg.bugs) findings.push('no bugs');
  if (!pkg.scripts?.prepack) findings.push('no prepack script: a fresh clone would pack no dist/');

  const readme = shipped.has('README.md') ? read('README.md') : '';
  if (readme === '') findings.push('no README.md');
  if (!readme.includes(ESM_LINE)) findings.push(`README does not say "${ESM_LINE})"`);
  // Links outside code blocks: [text](target) and ![alt](target).
  const prose = readme.replace(/^```[\s\S]*?^```/gm, '');
  for (const [, target] of prose.matchAll(/\]\(([^)\s]*)(?:\s+"[^"]*")?\)/g)) {
    if (target === '') findings.push('README has an empty link: []()');
    else if (/^(https?:|mailto:)/.test(target) || target.startsWith('#')) continue;
    else if (!shipped.has(target.replace(/^\.\//, '').replace(/#.*$/, '')))
      findings.push(`README links ${target}, which is not in the tarball (broken on the registry)`);
  }

  // What the README promises: CommonJS can require() every entry point (Node 20.19+).
  for (const sub of Object.keys(pkg.exports ?? {}).filter((k) => !k.endsWith('.json'))) {
    const id = pkg.name + sub.slice(1);
    const cjs = spawnSync(process.execPath, ['--no-warnings', '-e', `require(${JSON.stringify(id)})`], {
      cwd: root,
      encoding: 'utf8',
    });
    if (cjs.status !== 0) findings.push(`require('${id}') fails:\n${cjs.stderr}`);
  }

  const size = `${files.length} files, ${(packed.size / 1024).toFixed(1)} kB`;
  if (findings.length === 0) console.log(`ok   ${pkg.name}@${pkg.version} (${size})`);
  else {
    console.log(`FAIL ${pkg.name}@${pkg.version} (${size})`);
    for (const f of findings) console.log(`  - ${f.trimEnd().replaceAll('\n', '\n    ')}`);
    failures.push(pkg.name);
  }
}
if (keep) console.log(`tarballs in ${out}`);
else rmSync(out, { recursive: true, force: true });
if (failures.length > 0) {
  console.log(`\n${failures.length} of ${packages.length} packages would not publish cleanly`);
  process.exit(1);
}
