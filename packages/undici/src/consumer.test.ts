// The done-when of issue 15: a consumer project outside the monorepo. It packs the packages as
// `npm publish` would (each prepack builds it), installs the tarballs in a temp dir, type-checks
// the consumer's code with moduleResolution nodenext and runs it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../../../..');
const packages = ['core', 'breaker', 'classifier', 'ratelimit', 'retry', 'undici'];
const dir = mkdtempSync(join(tmpdir(), 'rxgate-consumer-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', npm_config_update_notifier: 'false' };

it('a consumer installs the packed tarballs, type-checks with nodenext and runs breaker, wrap and undici', {
  timeout: 600_000,
}, () => {
  for (const p of packages)
    execFileSync('npm', ['pack', '--pack-destination', dir], {
      cwd: join(root, 'packages', p),
      env,
      stdio: 'pipe',
    });
  const tarballs = readdirSync(dir).filter((f) => f.endsWith('.tgz'));
  assert.equal(tarballs.length, packages.length);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2),
  );
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2023',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        types: ['node'],
        outDir: 'out',
        skipLibCheck: false,
      },
      include: ['app.ts'],
    }),
  );
  cpSync(join(root, 'packages/undici/src/consumer/app.ts'), join(dir, 'app.ts'));
  execFileSync(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      ...tarballs.map((t) => `./${t}`),
      'undici@7.30.2',
      '@types/node@20',
      'typescript@6.0',
    ],
    { cwd: dir, env, stdio: 'pipe' },
  );
  execFileSync(join(dir, 'node_modules/.bin/tsc'), ['-p', '.'], { cwd: dir, stdio: 'pipe' });
  const out = execFileSync(process.execPath, ['out/app.js'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  for (const line of [
    'ok breaker alone over fetch opens on three 503s',
    'ok the open breaker refuses without sending',
    'ok wrap(limiter, retry, breaker) retries the 429',
    'ok undici interceptors retry the 503',
    'ok VirtualClock runs',
  ])
    assert.ok(out.includes(line), `missing "${line}" in:\n${out}`);
});
