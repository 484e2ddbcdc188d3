import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import { systemClock } from './clock.js';

describe('systemClock', () => {
  afterEach(() => mock.timers.reset());

  it('is epoch-aligned and never runs backwards', () => {
    // Date.now() is whole milliseconds and may be stepped by NTP; the bound only tells an
    // epoch-aligned clock (difference ~0) from one that is not (a difference of decades).
    const a = systemClock.now();
    assert.ok(Math.abs(a - Date.now()) < 60_000, `${a} against ${Date.now()}`);
    let last = a;
    for (let i = 0; i < 1000; i++) {
      const t = systemClock.now();
      assert.ok(t >= last, `${t} after ${last}`);
      last = t;
    }
  });

  it('arms a delay past 24.8 days in steps (setTimeout alone would fire at once)', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    let fired = false;
    systemClock.setTimer(30 * 24 * 3600 * 1000, () => {
      fired = true;
    });
    mock.timers.tick(2_147_483_647);
    assert.equal(fired, false);
    mock.timers.tick(30 * 24 * 3600 * 1000 - 2_147_483_647);
    assert.equal(fired, true);
  });

  it('cancel stops a stepped timer too', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    let fired = false;
    const h = systemClock.setTimer(30 * 24 * 3600 * 1000, () => {
      fired = true;
    });
    mock.timers.tick(2_147_483_647);
    h.cancel();
    mock.timers.tick(30 * 24 * 3600 * 1000);
    assert.equal(fired, false);
  });

  it('a timer holds the process until it fires; an unref’d one, even a stepped one, does not', async () => {
    const { spawnSync } = await import('node:child_process');
    const url = new URL('./clock.ts', import.meta.url).href;
    const run = (body: string) =>
      spawnSync(
        process.execPath,
        ['--import', 'tsx', '-e', `import(${JSON.stringify(url)}).then((m) => { ${body} })`],
        {
          encoding: 'utf8',
          timeout: 20_000,
        },
      );
    assert.equal(run('m.systemClock.setTimer(50, () => process.exit(3))').status, 3);
    assert.equal(run('m.systemClock.setTimer(60_000, () => process.exit(3)).unref()').status, 0);
    assert.equal(
      run('m.systemClock.setTimer(30 * 24 * 3600 * 1000, () => process.exit(3)).unref()').status,
      0,
    );
  });

  it('now() is epoch-aligned', () => {
    assert.ok(Math.abs(systemClock.now() - Date.now()) < 1000);
  });
});
