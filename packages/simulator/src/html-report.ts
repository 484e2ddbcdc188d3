// One self-contained HTML page from a run's JSON report: no CDN, no script, no network; charts
// are SVG drawn here, so the page opens from disk and stays light with a whole pharmacy-day in it.
import { defaultCatalogue } from '@rxgate/classifier';

import type { RunReport } from './report-schema.js';

interface Series {
  readonly name: string;
  readonly color: string;
  readonly values: ReadonlyArray<number | null>;
  readonly dashed?: boolean;
}

const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const fmt = (n: number) =>
  (Math.abs(n) >= 1000 ? Math.round(n).toLocaleString('en') : Math.round(n * 100) / 100).toString();
const COLORS = {
  blue: '#2563eb',
  green: '#16a34a',
  red: '#dc2626',
  amber: '#d97706',
  purple: '#7c3aed',
  gray: '#6b7280',
  teal: '#0d9488',
  pink: '#db2777',
};

/** Whole-page time, in the largest unit that reads well: 45 s, 3.5 min, 24 h. */
function timeLabel(ms: number): string {
  if (ms >= 2 * 3_600_000) return `${round1(ms / 3_600_000)} h`;
  if (ms >= 2 * 60_000) return `${round1(ms / 60_000)} min`;
  return `${round1(ms / 1000)} s`;
}
const round1 = (x: number) => (Math.round(x * 10) / 10).toString();

/** Ticks of an axis from 0: a step of 1, 2, 2.5 or 5 × 10^k, and the top tick at or above `max`. */
export function niceTicks(max: number, target = 5): { readonly ticks: number[]; readonly step: number } {
  const top = Number.isFinite(max) && max > 0 ? max : 1;
  const raw = top / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / mag;
  const step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10) * mag;
  const n = Math.ceil(top / step - 1e-9);
  return { ticks: Array.from({ length: n + 1 }, (_, i) => round12(i * step)), step };
}
const round12 = (x: number) => Math.round(x * 1e12) / 1e12;

/** Numbers of one axis, all with the decimals its step needs: 0, 2.5, 5, 7.5 or 0, 5,000, 10,000. */
function tickFormat(step: number): (v: number) => string {
  const decimals = Math.max(0, Math.ceil(-Math.log10(step) + (step % 1 === 0 ? 0 : 1e-9)));
  const d = step * 10 ** decimals === Math.round(step * 10 ** decimals) ? decimals : decimals + 1;
  return (v) => v.toLocaleString('en', { minimumFractionDigits: d, maximumFractionDigits: d });
}

// Time-axis steps per unit: one unit for a whole axis.
const TIME_UNITS = [
  { unit: 's', ms: 1000, steps: [1, 2, 5, 10, 15, 20, 30, 60] },
  { unit: 'min', ms: 60_000, steps: [1, 2, 5, 10, 15, 20, 30, 60] },
  { unit: 'h', ms: 3_600_000, steps: [1, 2, 3, 4, 6, 12, 24, 48] },
];

/** Ticks of a time axis from 0 to `endMs`: one unit (s, min or h) and a round step, 4 to 9 ticks. */
export function timeTicks(endMs: number): {
  readonly ticks: number[];
  readonly label: (ms: number) => string;
} {
  const end = Math.max(1, endMs);
  const u = end >= 5 * 3_600_000 ? TIME_UNITS[2]! : end >= 5 * 60_000 ? TIME_UNITS[1]! : TIME_UNITS[0]!;
  const span = end / u.ms;
  const step = u.steps.find((s) => span / s <= 8) ?? Math.ceil(span / 8);
  const ticks: number[] = [];
  for (let v = 0; v <= span + 1e-9; v += step) ticks.push(v * u.ms);
  return { ticks, label: (ms) => `${round1(ms / u.ms)} ${u.unit}` };
}

/**
 * A plot: y labels in a column as wide as the widest, the drawing in an SVG that stretches to
 * the figure's width (strokes stay thin: non-scaling), x labels under it. Labels are HTML, so
 * text keeps its size on any screen; a label's anchor moves from its left edge at 0 % to its
 * right edge at 100 %, so the first and the last stay inside the chart.
 */
function plot(
  drawing: string,
  yTicks: ReadonlyArray<readonly [number, string]>,
  xTicks: ReadonlyArray<readonly [number, string]>,
  height = 200,
): string {
  // At least 6 characters, so that the plots of one page line up.
  const yWidth = Math.max(6, ...yTicks.map(([, l]) => l.length));
  const ys = yTicks.map(([f, l]) => `<span style="top:${pct(1 - f)}">${esc(l)}</span>`).join('');
  const grid = yTicks
    .map(
      ([f]) =>
        `<line class="grid" x1="0" x2="1000" y1="${(1000 * (1 - f)).toFixed(1)}" y2="${(1000 * (1 - f)).toFixed(1)}"/>`,
    )
    .join('');
  const xs = xTicks
    .map(([f, l]) => `<span style="left:${pct(f)};transform:translateX(-${pct(f)})">${esc(l)}</span>`)
    .join('');
  return `<div class="plot" style="--h:${height}px;--yw:${yWidth + 1}ch"><div class="y">${ys}</div><svg class="area" viewBox="0 0 1000 1000" preserveAspectRatio="none">${grid}${drawing}</svg><div class="x">${xs}</div></div>`;
}
const pct = (f: number) => `${(Math.min(1, Math.max(0, f)) * 100).toFixed(2)}%`;

/** A line chart against time, fault windows shaded. */
function lineChart(
  title: string,
  unit: string,
  t: readonly number[],
  bucketMs: number,
  endMs: number,
  series: readonly Series[],
  shade: ReadonlyArray<[number, number, string]>,
): string {
  const all = series.flatMap((s) => s.values.filter((v): v is number => v !== null && Number.isFinite(v)));
  const { ticks, step } = niceTicks(Math.max(0, ...all));
  const ymax = ticks.at(-1)!;
  const label = tickFormat(step);
  const x = (ms: number) => (1000 * ms) / endMs;
  const y = (v: number) => 1000 * (1 - v / ymax);
  const parts: string[] = [];
  for (const [a, b, what] of shade) {
    parts.push(
      `<rect class="fault" x="${x(a).toFixed(1)}" y="0" width="${Math.max(1, x(b) - x(a)).toFixed(1)}" height="1000"><title>${esc(what)}</title></rect>`,
    );
  }
  for (const s of series) {
    let d = '';
    let pen = false;
    s.values.forEach((v, i) => {
      if (v === null || !Number.isFinite(v)) {
        pen = false;
        return;
      }
      d += `${pen ? 'L' : 'M'}${x((t[i] ?? 0) + bucketMs / 2).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
    });
    if (d)
      parts.push(
        `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="1.6" vector-effect="non-scaling-stroke"${s.dashed ? ' stroke-dasharray="4 3"' : ''}><title>${esc(s.name)}</title></path>`,
      );
  }
  const time = timeTicks(endMs);
  const legend = series
    .map((s) => `<span><i style="background:${s.color}"></i>${esc(s.name)}</span>`)
    .join('');
  return `<figure class="chart wide"><figcaption>${esc(title)} <small>(${esc(unit)})</small></figcaption>${plot(
    parts.join(''),
    ticks.map((v) => [v / ymax, label(v)] as const),
    time.ticks.map((ms) => [ms / endMs, time.label(ms)] as const),
  )}<div class="legend">${legend}</div></figure>`;
}

/** Horizontal bars: labels as wide as the longest, values after the bars. */
function barChart(
  title: string,
  rows: ReadonlyArray<readonly [string, number, (string | undefined)?]>,
): string {
  const max = Math.max(1, ...rows.map((r) => r[1]));
  const bars = rows
    .map(
      ([label, v, color]) =>
        `<span class="label">${esc(label)}</span><span class="track"><svg viewBox="0 0 1000 10" preserveAspectRatio="none"><path d="M0,0H${Math.max(2, (1000 * v) / max).toFixed(1)}V10H0z" fill="${color ?? COLORS.blue}"/></svg></span><span class="value">${fmt(v)}</span>`,
    )
    .join('');
  return `<figure class="chart small"><figcaption>${esc(title)}</figcaption>${rows.length === 0 ? '<p class="muted">none</p><svg class="none" viewBox="0 0 10 1"><path d="M0,0H10"/></svg>' : `<div class="bars">${bars}</div>`}</figure>`;
}

/** Breaker state per key as a timeline. */
function breakerTimeline(
  transitions: ReadonlyArray<{ at: number; key: string; to: string }>,
  endMs: number,
): string {
  const keys = [...new Set(transitions.map((t) => t.key))].sort();
  const x = (ms: number) => (1000 * Math.min(ms, endMs)) / endMs;
  const color: Record<string, string> = {
    closed: COLORS.green,
    open: COLORS.red,
    'half-open': COLORS.amber,
    isolated: COLORS.gray,
  };
  const band = (from: number, to: number, state: string) =>
    `<path d="M${x(from).toFixed(1)},0H${Math.max(x(from) + 0.5, x(to)).toFixed(1)}V10H${x(from).toFixed(1)}z" fill="${color[state] ?? COLORS.gray}"><title>${esc(state)}</title></path>`;
  const rows = (keys.length === 0 ? ['every breaker'] : keys).map((key) => {
    let state = 'closed';
    let from = 0;
    const parts: string[] = [];
    for (const t of transitions.filter((x) => x.key === key)) {
      parts.push(band(from, t.at, state));
      state = t.to;
      from = t.at;
    }
    parts.push(band(from, endMs, state));
    return `<span class="label">${esc(key)}</span><svg viewBox="0 0 1000 10" preserveAspectRatio="none">${parts.join('')}</svg>`;
  });
  const time = timeTicks(endMs);
  const xs = time.ticks
    .map((ms) => {
      const f = pct(ms / endMs);
      return `<span style="left:${f};transform:translateX(-${f})">${esc(time.label(ms))}</span>`;
    })
    .join('');
  const legend = Object.entries(color)
    .map(([k, c]) => `<span><i style="background:${c}"></i>${k}</span>`)
    .join('');
  return `<figure class="chart wide"><figcaption>Breaker state per node × segment</figcaption><div class="lanes">${rows.join('')}<span></span><div class="x">${xs}</div></div><div class="legend">${legend}</div></figure>`;
}

/** The latency histogram, rebinned on a log scale. */
function histogram(buckets: ReadonlyArray<[number, number]>): string {
  const bins = 48;
  const lo = Math.log10(0.1);
  const hi = Math.log10(Math.max(10, ...buckets.map((b) => b[0])));
  const counts = new Array<number>(bins).fill(0);
  for (const [upper, c] of buckets)
    counts[
      Math.min(
        bins - 1,
        Math.max(0, Math.floor(((Math.log10(Math.max(0.1, upper)) - lo) / (hi - lo)) * bins)),
      )
    ]! += c;
  const { ticks, step } = niceTicks(Math.max(1, ...counts), 4);
  const ymax = ticks.at(-1)!;
  const label = tickFormat(Math.max(1, step));
  const bw = 1000 / bins;
  const bars = counts
    .map(
      (c, i) =>
        `<path d="M${(i * bw + 1).toFixed(1)},1000V${(1000 * (1 - c / ymax)).toFixed(1)}h${(bw - 2).toFixed(1)}V1000z" fill="${COLORS.purple}"><title>${c}</title></path>`,
    )
    .join('');
  const xTicks = [1, 10, 100, 1000, 10_000, 100_000]
    .filter((v) => Math.log10(v) <= hi)
    .map((v) => [(Math.log10(v) - lo) / (hi - lo), v >= 1000 ? `${v / 1000} s` : `${v} ms`] as const);
  return `<figure class="chart small"><figcaption>Latency, submit to outcome <small>(claims; log time scale)</small></figcaption>${plot(
    bars,
    ticks.filter((v) => v === Math.round(v)).map((v) => [v / ymax, label(v)] as const),
    xTicks,
    150,
  )}</figure>`;
}

/** "all 14", or "50 of 204 shown". */
function shownOf(shown: number, total: number): string {
  return shown === total ? (total === 0 ? '' : `all ${fmt(total)}`) : `${fmt(shown)} of ${fmt(total)} shown`;
}

/** Renders the page from `buildReport(run).json`. */
export function renderHtml(report: RunReport): string {
  const ts = report.timeSeries;
  const faults = report.faults;
  const shade = faults.map(
    (f) => [f.startMs, f.endMs, `${f.kind} (${f.node}) fired ${f.fired}×`] as [number, number, string],
  );
  const perSec = (xs: number[]) => xs.map((v) => (v * 1000) / ts.bucketMs);
  const thresholds = report.thresholds;
  const invariants = report.invariants.lines;
  const latency = report.latency;
  const groups = new Map<string, number>();
  for (const [code, n] of Object.entries(report.rejectCodes)) {
    const g = defaultCatalogue.lookup(code)?.group ?? 'unknown';
    groups.set(g, (groups.get(g) ?? 0) + n);
  }
  // One unit for the latency axis: seconds once it passes 10 s (40 s, not 40,000 ms).
  const latencyInSeconds =
    Math.max(
      0,
      ...(['pos', 'batch'] as const).flatMap((lane) =>
        ts.latency[lane].p99.filter((v): v is number => v !== null),
      ),
    ) >= 10_000;
  const inLatencyUnit = (xs: Array<number | null>) =>
    latencyInSeconds ? xs.map((v) => (v === null ? null : v / 1000)) : xs;
  const slowest = report.slowest;
  const deadLettered = report.deadLettered;
  const deadShown = deadLettered.slice(0, 50);
  // The JSON keeps the first 100; the outcomes count them all.
  const deadTotal = Math.max(deadLettered.length, report.outcomes['dead-lettered'] ?? 0);
  const endMs = Math.max(Number(report.spanMs) || 0, (ts.t.at(-1) ?? 0) + ts.bucketMs);
  const ok = report.ok === true;
  const outcomeColor: Record<string, string> = {
    paid: COLORS.green,
    approved: COLORS.green,
    captured: COLORS.green,
    rejected: COLORS.amber,
    duplicate: COLORS.teal,
    'dead-lettered': COLORS.red,
    'needs-reconciliation': COLORS.pink,
    invalid: COLORS.gray,
  };
  const table = (title: string, count: string, head: string[], rows: unknown[][]) =>
    `<section class="tbl"><h3>${esc(title)} <small>${esc(count)}</small></h3>${rows.length === 0 ? '<p class="muted">none</p>' : `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`}</section>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>rxgate-sim · ${esc(report.scenario)} · seed ${esc(report.seed)}</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f8fafc;color:#0f172a}
header{background:#0f172a;color:#f8fafc;padding:16px 24px}header h1{margin:0;font-size:20px}header p{margin:4px 0 0;color:#cbd5e1}
.strip{display:flex;flex-wrap:wrap;gap:6px;padding:10px 24px;background:#e2e8f0}.pill{padding:3px 10px;border-radius:12px;font-weight:600;font-size:12px}
.ok{background:#dcfce7;color:#166534}.bad{background:#fee2e2;color:#991b1b}
main{padding:8px 24px 24px;max-width:1800px}h2{font-size:16px;margin:18px 0 8px}h3{font-size:14px;margin:8px 0}
.verdict{font-size:15px;font-weight:700}.inv li{margin:2px 0;list-style:none}.inv li::before{content:attr(data-mark);margin-right:8px}
.grid2{display:flex;flex-wrap:wrap;gap:16px}.chart{background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:10px 14px;margin:0;min-width:0;box-sizing:border-box}
.chart.wide{flex:1 1 100%}.chart.small{flex:1 1 300px}figcaption{font-weight:600;margin-bottom:6px}figcaption small{font-weight:400;color:#475569}svg{display:block}
.plot{display:grid;grid-template-columns:var(--yw) minmax(0,1fr);grid-template-rows:var(--h) 18px;column-gap:6px;padding-top:6px;font-size:11px;color:#475569}
.plot .y{position:relative}.plot .y span{position:absolute;right:0;transform:translateY(-50%);white-space:nowrap}
.plot .area{width:100%;height:100%;overflow:visible;border-left:1px solid #cbd5e1;border-bottom:1px solid #cbd5e1;box-sizing:border-box}
.x{grid-column:2;position:relative;font-size:11px;color:#475569;height:18px}.x span{position:absolute;top:3px;white-space:nowrap}
.lanes{display:grid;grid-template-columns:max-content minmax(0,1fr);column-gap:8px;row-gap:4px;align-items:center;font-size:12px}.lanes svg{width:100%;height:16px}
.bars{display:grid;grid-template-columns:max-content minmax(0,1fr) max-content;column-gap:8px;row-gap:5px;align-items:center;font-size:12px}.bars .track svg{width:100%;height:14px}.bars .value{font-variant-numeric:tabular-nums;color:#334155}
.label{text-align:right;white-space:nowrap;color:#334155}.grid{stroke:#e2e8f0;vector-effect:non-scaling-stroke}.fault{fill:#fca5a5;opacity:.35}svg.none{display:none}
.legend{display:flex;flex-wrap:wrap;gap:12px;font-size:12px;color:#334155;margin-top:6px}.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px}
table{border-collapse:collapse;background:#fff;font-size:12px}td,th{border:1px solid #e2e8f0;padding:4px 8px;text-align:left}.muted{color:#64748b}.tbl{flex:1 1 420px}.tbl h3 small{font-weight:400;color:#475569}
</style></head><body>
<header><h1>rxgate-sim · ${esc(report.scenario)}</h1>
<p>seed ${esc(report.seed)} · scenario hash ${esc(report.hash)} · rxgate ${esc(report.rxgate)} · ${esc(report.mode)} · ${fmt(Number(report.claims))} claims over ${esc(timeLabel(endMs))}</p></header>
<div class="strip"><span class="pill ${ok ? 'ok' : 'bad'}">${ok ? 'PASS' : 'FAIL'}</span>${thresholds.map((t) => `<span class="pill ${t.ok ? 'ok' : 'bad'}">${t.ok ? '✓' : '✗'} ${esc(t.expression)} (${t.actual === undefined ? '?' : fmt(t.actual)})</span>`).join('')}</div>
<main>
<h2>Invariants</h2><ul class="inv">${invariants.map((i) => `<li data-mark="${i.ok ? '✓' : '✗'}" class="${i.ok ? '' : 'bad'}"><b>${esc(i.name)}</b> — ${esc(i.detail)}</li>`).join('')}</ul>
<p class="muted">Replay: <code>${esc(report.replay)}</code>. Shaded: fault windows.</p>
<h2>Over time</h2><div class="grid2">
${lineChart(
  'Throughput',
  'requests per second',
  ts.t,
  ts.bucketMs,
  endMs,
  [
    { name: 'sent (admitted)', color: COLORS.blue, values: perSec(ts.sent) },
    { name: 'adjudicated', color: COLORS.green, values: perSec(ts.adjudicated) },
    { name: 'throttled', color: COLORS.red, values: perSec(ts.throttled) },
    { name: 'failed over', color: COLORS.amber, values: perSec(ts.failedOver) },
  ],
  shade,
)}
${lineChart(
  "Vendor's remaining quota",
  "requests left in the primary's window",
  ts.t,
  ts.bucketMs,
  endMs,
  [{ name: 'remaining quota (primary)', color: COLORS.teal, values: ts.remainingQuota }],
  shade,
)}
${lineChart(
  "The limiter's rate in force",
  'requests per second',
  ts.t,
  ts.bucketMs,
  endMs,
  [{ name: 'limiter rate', color: COLORS.purple, values: ts.limiterRate }],
  shade,
)}
${lineChart(
  'Latency percentiles per lane',
  latencyInSeconds ? 's' : 'ms',
  ts.t,
  ts.bucketMs,
  endMs,
  [
    { name: 'pos p50', color: COLORS.green, values: inLatencyUnit(ts.latency.pos.p50) },
    { name: 'pos p95', color: COLORS.amber, values: inLatencyUnit(ts.latency.pos.p95) },
    { name: 'pos p99', color: COLORS.red, values: inLatencyUnit(ts.latency.pos.p99) },
    { name: 'batch p50', color: COLORS.teal, values: inLatencyUnit(ts.latency.batch.p50), dashed: true },
    { name: 'batch p95', color: COLORS.purple, values: inLatencyUnit(ts.latency.batch.p95), dashed: true },
    { name: 'batch p99', color: COLORS.pink, values: inLatencyUnit(ts.latency.batch.p99), dashed: true },
  ],
  shade,
)}
${breakerTimeline(report.breakerTransitions, endMs)}
</div>
<h2>Totals</h2><div class="grid2">
${barChart(
  'Outcomes by kind',
  Object.entries(report.outcomes).map(([k, v]) => [k, v, outcomeColor[k]]),
)}
${barChart(
  'Reject codes by group',
  [...groups.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v, COLORS.amber]),
)}
${barChart(
  'Vendor answers by HTTP status',
  Object.entries(report.statuses).map(([k, v]) => [
    k,
    v,
    k.startsWith('2') ? COLORS.green : k.startsWith('4') ? COLORS.amber : COLORS.red,
  ]),
)}
${histogram(latency.histogram)}
</div>
<p>Latency all: p50 ${fmt(latency.all.p50 ?? 0)} · p90 ${fmt(latency.all.p90 ?? 0)} · p95 ${fmt(latency.all.p95 ?? 0)} · p99 ${fmt(latency.all.p99 ?? 0)} · max ${fmt(latency.all.max ?? 0)} ms</p>
<h2>Claims to look at</h2><div class="grid2">
${table(
  'Slowest claims',
  `the ${slowest.length} slowest of ${fmt(Number(report.claims))} claims`,
  ['correlation id', 'lane', 'outcome', 'ms'],
  slowest.map((s) => [s.correlationId, s.lane, s.kind, fmt(Number(s.elapsedMs))]),
)}
${table(
  'Dead-lettered claims',
  shownOf(deadShown.length, deadTotal),
  ['correlation id', 'reason'],
  deadShown.map((d) => [d.correlationId, d.reason]),
)}
</div>
</main></body></html>
`;
}
