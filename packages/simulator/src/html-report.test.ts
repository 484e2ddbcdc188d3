// The HTML report, tested as a person would see it: built from a short scenario, opened from
// disk in headless Chromium (Debian's, driven by playwright-core), every chart drawn, no
// console error, a screenshot saved.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { renderHtml } from './html-report.js';
import { buildReport } from './report.js';
import { runScenario } from './runner.js';
import { loadScenario, parseScenario } from './scenario.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI)
  throw new Error(`Chromium is missing under CI (${CHROMIUM}): .ci/run must install it`);
if (!haveChromium)
  process.stderr.write(
    `\n!!! ${CHROMIUM} not found: the browser test of the HTML report is SKIPPED (apt-get install chromium)\n\n`,
  );

async function shortReport() {
  const base = await loadScenario('503-maintenance');
  const s = parseScenario({ ...base, traffic: { ...base.traffic, durationMs: 90_000 } });
  return buildReport(await runScenario(s)).json;
}

describe('HTML report', () => {
  it('is one self-contained page: no script, no network', async () => {
    const html = renderHtml(await shortReport());
    assert.match(html, /^<!doctype html>/);
    assert.doesNotMatch(html, /<script|https?:\/\/|<link /i);
    assert.match(html, /503-maintenance/);
    assert.ok(html.length < 500_000);
    assert.ok(!/ZX\d{7}/.test(html), 'no cardholder ID');
  });

  it('draws every chart in headless Chromium, with no console error', {
    skip: !haveChromium && 'chromium not installed',
  }, async () => {
    const { chromium } = await import('playwright-core');
    const dir = join(tmpdir(), `rxgate-report-${process.pid}`);
    await mkdir(dir, { recursive: true });
    const file = join(dir, 'report.html');
    await writeFile(file, renderHtml(await shortReport()));
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const errors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(e.message));
      const requests: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      await page.goto(pathToFileURL(file).href);
      const charts = await page.$$eval('figure.chart', (figs) =>
        figs.map((f) => ({
          title: f.querySelector('figcaption')?.textContent ?? '',
          paths: [...f.querySelectorAll('svg path')].filter((p) => (p.getAttribute('d') ?? '').length > 4)
            .length,
          width: f.querySelector('svg')?.getBoundingClientRect().width ?? 0,
        })),
      );
      assert.ok(charts.length >= 8, `${charts.length} charts`);
      for (const c of charts) {
        assert.ok(c.paths > 0, `chart "${c.title}" drew nothing`);
        assert.ok(c.width > 100, `chart "${c.title}" has no width`);
      }
      assert.deepEqual(errors, []);
      assert.deepEqual(
        requests.filter((u) => !u.startsWith('file:')),
        [],
        'no network',
      );
      await page.screenshot({ path: join(dir, 'report.png'), fullPage: true });
      assert.ok(existsSync(join(dir, 'report.png')));
    } finally {
      await browser.close();
    }
  });
});
