/// <reference lib="dom" />
// (The DOM types serve the functions this test runs in the browser; the build leaves tests out.)
// The HTML report, tested as a person would see it: built from a scenario, opened from disk in
// headless Chromium (Debian's, driven by playwright-core) at 1400 and at 900 px wide: every
// chart drawn and as wide as the page allows, no label cut off, ticks that read, "N of M
// shown" where a table lists fewer than there are, no console error; a screenshot of each.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { niceTicks, renderHtml, timeTicks } from './html-report.js';
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

const isNiceStep = (step: number) => {
  const mag = 10 ** Math.floor(Math.log10(step) + 1e-9);
  return [1, 2, 2.5, 5, 10].some((m) => Math.abs(step - m * mag) < 1e-9 * mag);
};

describe('axes', () => {
  it('value ticks start at 0, step by 1, 2, 2.5 or 5 × 10^k, and reach the maximum', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-3, max: 1e9, noNaN: true }), (max) => {
        const { ticks, step } = niceTicks(max);
        assert.equal(ticks[0], 0);
        assert.ok(ticks.at(-1)! >= max * (1 - 1e-12), `${ticks.at(-1)} < ${max}`);
        assert.ok(ticks.length >= 3 && ticks.length <= 11, `${ticks.length} ticks`);
        assert.ok(isNiceStep(step), `step ${step}`);
      }),
    );
    assert.deepEqual(niceTicks(18_528).ticks, [0, 5000, 10_000, 15_000, 20_000]);
  });

  it('time ticks use one unit per axis and a round step, 4 to 9 of them', () => {
    fc.assert(
      fc.property(fc.integer({ min: 4000, max: 7 * 86_400_000 }), (endMs) => {
        const { ticks, label } = timeTicks(endMs);
        const units = new Set(ticks.map((ms) => label(ms).split(' ')[1]));
        assert.equal(units.size, 1, ticks.map(label).join(', '));
        assert.ok(ticks.length >= 3 && ticks.length <= 9, ticks.map(label).join(', '));
        assert.ok(ticks.at(-1)! <= endMs);
        for (const ms of ticks) assert.match(label(ms), /^\d+ (s|min|h)$/);
      }),
    );
    assert.deepEqual(timeTicks(121_000).ticks.map(timeTicks(121_000).label), [
      '0 s',
      '20 s',
      '40 s',
      '60 s',
      '80 s',
      '100 s',
      '120 s',
    ]);
    assert.deepEqual(timeTicks(86_400_000).ticks.map(timeTicks(86_400_000).label), [
      '0 h',
      '3 h',
      '6 h',
      '9 h',
      '12 h',
      '15 h',
      '18 h',
      '21 h',
      '24 h',
    ]);
  });
});

describe('HTML report', () => {
  it('is one self-contained page: no script, no network', async () => {
    const html = renderHtml(await shortReport());
    assert.match(html, /^<!doctype html>/);
    assert.doesNotMatch(html, /<script|https?:\/\/|<link /i);
    assert.match(html, /503-maintenance/);
    assert.ok(html.length < 500_000);
    assert.ok(!/ZX\d{7}/.test(html), 'no cardholder ID');
  });

  // A scenario with 205 dead-lettered claims, more than the page lists.
  for (const width of [1400, 900])
    it(`at ${width} px: full-width charts, nice ticks in one unit, labels inside, "N of M shown" (screenshot)`, {
      skip: !haveChromium && 'chromium not installed',
    }, async () => {
      const report = buildReport(await runScenario(await loadScenario('429-storm'))).json;
      const { chromium } = await import('playwright-core');
      const dir = join(tmpdir(), `rxgate-report-${process.pid}`);
      await mkdir(dir, { recursive: true });
      const file = join(dir, 'report.html');
      await writeFile(file, renderHtml(report));
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
        const page = await browser.newPage({ viewport: { width, height: 1000 } });
        const errors: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error') errors.push(m.text());
        });
        page.on('pageerror', (e) => errors.push(e.message));
        const requests: string[] = [];
        page.on('request', (r) => requests.push(r.url()));
        // tsx names the functions below with a helper of its own that the page lacks.
        await page.addInitScript({ content: 'globalThis.__name = (f) => f;' });
        await page.goto(pathToFileURL(file).href);
        const seen = await page.evaluate(() => {
          const box = (e: Element) => e.getBoundingClientRect();
          const main = document.querySelector('main')!;
          const style = getComputedStyle(main);
          const content = box(main).width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
          return {
            scrollWidth: document.documentElement.scrollWidth,
            innerWidth: window.innerWidth,
            content,
            charts: [...document.querySelectorAll('figure.chart')].map((f) => {
              const r = box(f);
              const labels = [...f.querySelectorAll('text, span, figcaption')]
                .filter((l) => l.children.length === 0 || l.tagName === 'figcaption')
                .map((l) => ({ text: l.textContent ?? '', r: box(l) }))
                .filter((l) => l.text.trim() !== '' && l.r.width > 0);
              return {
                title: f.querySelector('figcaption')?.textContent ?? '',
                small: f.classList.contains('small'),
                width: r.width,
                drawn: [...f.querySelectorAll('svg path')].filter(
                  (p) => (p.getAttribute('d') ?? '').length > 4 && box(p).width > 0,
                ).length,
                outside: labels
                  .filter((l) => l.r.left < r.left - 0.5 || l.r.right > r.right + 0.5)
                  .map((l) => l.text),
                yTicks: [...f.querySelectorAll('.plot .y span, svg text[text-anchor="end"]')].map(
                  (t) => t.textContent ?? '',
                ),
                xTicks: [...f.querySelectorAll('.x span, svg text[text-anchor="middle"]')].map(
                  (t) => t.textContent ?? '',
                ),
              };
            }),
            tables: [...document.querySelectorAll('section.tbl')].map((t) => ({
              heading: t.querySelector('h3')?.textContent ?? '',
              rows: t.querySelectorAll('tbody tr').length,
            })),
          };
        });
        assert.deepEqual(errors, []);
        assert.deepEqual(
          requests.filter((u) => !u.startsWith('file:')),
          [],
          'no network',
        );
        assert.ok(seen.scrollWidth <= seen.innerWidth, `the page scrolls sideways: ${seen.scrollWidth}`);
        assert.ok(seen.charts.length >= 8, `${seen.charts.length} charts`);
        for (const c of seen.charts) {
          assert.ok(c.drawn > 0, `chart "${c.title}" drew nothing`);
          assert.deepEqual(c.outside, [], `labels of "${c.title}" cut off at its edge`);
        }
        // The charts over time (the small ones are the totals).
        const overTime = seen.charts.filter((c) => !c.small && c.yTicks.length > 0);
        assert.ok(overTime.length >= 4, 'the charts over time');
        for (const c of overTime) {
          assert.ok(c.width >= 0.97 * seen.content, `"${c.title}" is ${c.width} px of ${seen.content}`);
          const ys = c.yTicks.map((t) => Number(t.replaceAll(',', ''))).sort((a, b) => a - b);
          assert.equal(ys[0], 0, `"${c.title}" y ticks ${c.yTicks}`);
          const step = ys[1]! - ys[0]!;
          assert.ok(isNiceStep(step), `"${c.title}" y ticks ${c.yTicks}`);
          for (const [i, v] of ys.entries())
            assert.ok(Math.abs(v - i * step) < 1e-9, `"${c.title}" y ticks ${c.yTicks}`);
          const units = new Set(c.xTicks.map((t) => t.split(' ')[1]));
          assert.equal(units.size, 1, `"${c.title}" x ticks in mixed units: ${c.xTicks}`);
        }
        const outcomes = report.outcomes as Record<string, number>;
        const dead = seen.tables.find((t) => t.heading.startsWith('Dead-lettered'))!;
        const deadCount = outcomes['dead-lettered']!;
        assert.ok(
          deadCount > dead.rows,
          `${deadCount} dead letters, more than the ${dead.rows} the page lists`,
        );
        assert.equal(
          dead.heading,
          `Dead-lettered claims ${dead.rows} of ${deadCount.toLocaleString('en-US')} shown`,
        );
        const slowest = seen.tables.find((t) => t.heading.startsWith('Slowest'))!;
        assert.match(slowest.heading, new RegExp(`the ${slowest.rows} slowest of 1,061 claims`));
        const shot = join(dir, `report-${width}.png`);
        await page.screenshot({ path: shot, fullPage: true });
        assert.ok(existsSync(shot));
        // UPDATE_REPORT_PNG=1 keeps the wide one as the README's picture.
        if (width === 1400 && process.env.UPDATE_REPORT_PNG === '1')
          await page.screenshot({
            path: fileURLToPath(new URL('../../../docs/report.png', import.meta.url)),
            fullPage: false,
            clip: { x: 0, y: 0, width, height: 1400 },
          });
      } finally {
        await browser.close();
      }
    });
});
