// One self-contained HTML page from a run's JSON report: no CDN, no script, no network; charts
// are SVG drawn here, so the page opens from disk and stays light with a whole pharmacy-day in it.
import { defaultCatalogue } from '@rxgate/classifier';

type Json = Record<string, unknown>;
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

function timeLabel(ms: number): string {
  if (ms >= 3_600_000) return `${(ms / 3_600_000).toFixed(ms % 3_600_000 === 0 ? 0 : 1)} h`;
  if (ms >= 60_000) return `${(ms / 60_000).toFixed(ms % 60_000 === 0 ? 0 : 1)} m`;
  return `${Math.round(ms / 1000)} s`;
}

/** A line chart against time, fault windows shaded. */
function lineChart(
  title: string,
  t: readonly number[],
  bucketMs: number,
  series: readonly Series[],
  shade: ReadonlyArray<[number, number, string]>,
  unit: string,
): string {
  const W = 860;
  const H = 220;
  const L = 56;
  const R = 12;
  const T = 14;
  const B = 28;
  const xmax = Math.max(bucketMs, (t.at(-1) ?? 0) + bucketMs);
  const all = series.flatMap((s) => s.values.filter((v): v is number => v !== null && Number.isFinite(v)));
  const ymax = Math.max(1e-9, ...all) * 1.08;
  const x = (ms: number) => L + ((W - L - R) * ms) / xmax;
  const y = (v: number) => T + (H - T - B) * (1 - v / ymax);
  const parts: string[] = [];
  for (const [a, b, label] of shade) {
    parts.push(
      `<rect class="fault" x="${x(a).toFixed(1)}" y="${T}" width="${Math.max(1, x(b) - x(a)).toFixed(1)}" height="${H - T - B}"><title>${esc(label)}</title></rect>`,
    );
  }
  for (let i = 0; i <= 4; i++) {
    const v = (ymax / 1.08) * (i / 4);
    parts.push(
      `<line class="grid" x1="${L}" x2="${W - R}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"/><text class="tick" x="${L - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${fmt(v)}</text>`,
    );
  }
  for (let i = 0; i <= 6; i++) {
    const ms = (xmax * i) / 6;
    parts.push(
      `<text class="tick" x="${x(ms).toFixed(1)}" y="${H - 8}" text-anchor="middle">${timeLabel(ms)}</text>`,
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
        `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="1.6"${s.dashed ? ' stroke-dasharray="4 3"' : ''}><title>${esc(s.name)}</title></path>`,
      );
  }
  const legend = series
    .map((s) => `<span><i style="background:${s.color}"></i>${esc(s.name)}</span>`)
    .join('');
  return `<figure class="chart"><figcaption>${esc(title)} <small>(${esc(unit)})</small></figcaption><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)}">${parts.join('')}</svg><div class="legend">${legend}</div></figure>`;
}

/** Horizontal bars. */
function barChart(
  title: string,
  rows: ReadonlyArray<readonly [string, number, (string | undefined)?]>,
): string {
  const W = 420;
  const row = 22;
  const H = Math.max(1, rows.length) * row + 8;
  const max = Math.max(1, ...rows.map((r) => r[1]));
  const bars = rows
    .map(([label, v, color], i) => {
      const w = ((W - 200) * v) / max;
      const yy = 4 + i * row;
      return `<text class="tick" x="130" y="${yy + 15}" text-anchor="end">${esc(label)}</text><path d="M136,${yy + 3}h${Math.max(1, w).toFixed(1)}v15h${-Math.max(1, w).toFixed(1)}z" fill="${color ?? COLORS.blue}"/><text class="tick" x="${(140 + w).toFixed(1)}" y="${yy + 15}">${fmt(v)}</text>`;
    })
    .join('');
  return `<figure class="chart small"><figcaption>${esc(title)}</figcaption><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="${esc(title)}">${bars || '<text class="tick" x="10" y="16">none</text><path d="M0,0"/>'}</svg></figure>`;
}

/** Breaker state per key as a timeline. */
function breakerTimeline(
  transitions: ReadonlyArray<{ at: number; key: string; to: string }>,
  endMs: number,
): string {
  const keys = [...new Set(transitions.map((t) => t.key))].sort();
  const W = 860;
  const L = 150;
  const row = 22;
  const H = Math.max(1, keys.length) * row + 28;
  const x = (ms: number) => L + ((W - L - 12) * ms) / Math.max(1, endMs);
  const color: Record<string, string> = {
    closed: COLORS.green,
    open: COLORS.red,
    'half-open': COLORS.amber,
    isolated: COLORS.gray,
  };
  const parts: string[] = [];
  keys.forEach((key, i) => {
    const yy = 4 + i * row;
    parts.push(`<text class="tick" x="${L - 8}" y="${yy + 15}" text-anchor="end">${esc(key)}</text>`);
    let state = 'closed';
    let from = 0;
    for (const t of transitions.filter((x) => x.key === key)) {
      parts.push(
        `<path d="M${x(from).toFixed(1)},${yy + 3}H${Math.max(x(from) + 0.5, x(t.at)).toFixed(1)}v15H${x(from).toFixed(1)}z" fill="${color[state] ?? COLORS.gray}"/>`,
      );
      state = t.to;
      from = t.at;
    }
    parts.push(
      `<path d="M${x(from).toFixed(1)},${yy + 3}H${x(endMs).toFixed(1)}v15H${x(from).toFixed(1)}z" fill="${color[state] ?? COLORS.gray}"/>`,
    );
  });
  if (keys.length === 0)
    parts.push(
      `<path d="M${L},7H${x(endMs).toFixed(1)}v15H${L}z" fill="${COLORS.green}"/><text class="tick" x="${L - 8}" y="18" text-anchor="end">every breaker</text>`,
    );
  for (let i = 0; i <= 6; i++)
    parts.push(
      `<text class="tick" x="${x((endMs * i) / 6).toFixed(1)}" y="${H - 6}" text-anchor="middle">${timeLabel((endMs * i) / 6)}</text>`,
    );
  const legend = Object.entries(color)
    .map(([k, c]) => `<span><i style="background:${c}"></i>${k}</span>`)
    .join('');
  return `<figure class="chart"><figcaption>Breaker state per node × segment</figcaption><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="breaker states">${parts.join('')}</svg><div class="legend">${legend}</div></figure>`;
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
  const W = 420;
  const H = 170;
  const max = Math.max(1, ...counts);
  const bw = (W - 20) / bins;
  const bars = counts
    .map(
      (c, i) =>
        `<path d="M${(10 + i * bw).toFixed(1)},${H - 24}v${(-((H - 40) * c) / max).toFixed(1)}h${(bw - 1).toFixed(1)}v${(((H - 40) * c) / max).toFixed(1)}z" fill="${COLORS.purple}"><title>${c}</title></path>`,
    )
    .join('');
  const ticks = [1, 10, 100, 1000, 10000]
    .filter((v) => Math.log10(v) <= hi)
    .map(
      (v) =>
        `<text class="tick" x="${(10 + ((Math.log10(v) - lo) / (hi - lo)) * (W - 20)).toFixed(1)}" y="${H - 8}" text-anchor="middle">${v} ms</text>`,
    )
    .join('');
  return `<figure class="chart small"><figcaption>Latency, submit to outcome (log scale)</figcaption><svg viewBox="0 0 ${W} ${H}" role="img" aria-label="latency histogram">${bars}${ticks}</svg></figure>`;
}

/** Renders the page from `buildReport(run).json`. */
export function renderHtml(report: Json): string {
  const ts = report.timeSeries as {
    bucketMs: number;
    t: number[];
    sent: number[];
    adjudicated: number[];
    throttled: number[];
    failedOver: number[];
    remainingQuota: Array<number | null>;
    limiterRate: Array<number | null>;
    latency: Record<'pos' | 'batch', Record<'p50' | 'p95' | 'p99', Array<number | null>>>;
  };
  const faults =
    (report.faults as Array<{ kind: string; node: string; startMs: number; endMs: number; fired: number }>) ??
    [];
  const shade = faults.map(
    (f) => [f.startMs, f.endMs, `${f.kind} (${f.node}) fired ${f.fired}×`] as [number, number, string],
  );
  const perSec = (xs: number[]) => xs.map((v) => (v * 1000) / ts.bucketMs);
  const thresholds = report.thresholds as Array<{ expression: string; actual?: number; ok: boolean }>;
  const invariants = (report.invariants as { lines: Array<{ name: string; ok: boolean; detail: string }> })
    .lines;
  const latency = report.latency as Record<'all' | 'pos' | 'batch', Record<string, number>> & {
    histogram: Array<[number, number]>;
  };
  const groups = new Map<string, number>();
  for (const [code, n] of Object.entries(report.rejectCodes as Record<string, number>)) {
    const g = defaultCatalogue.lookup(code)?.group ?? 'unknown';
    groups.set(g, (groups.get(g) ?? 0) + n);
  }
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
  const table = (title: string, head: string[], rows: unknown[][]) =>
    `<section class="tbl"><h3>${esc(title)}</h3>${rows.length === 0 ? '<p class="muted">none</p>' : `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`}</section>`;
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
.grid2{display:flex;flex-wrap:wrap;gap:16px}.chart{background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:10px;margin:0;flex:1 1 860px;max-width:900px}
.chart.small{flex:1 1 420px;max-width:460px}figcaption{font-weight:600;margin-bottom:4px}svg{width:100%;height:auto;display:block}
.tick{font-size:10px;fill:#475569}.grid{stroke:#e2e8f0}.fault{fill:#fca5a5;opacity:.35}
.legend{display:flex;flex-wrap:wrap;gap:12px;font-size:12px;color:#334155}.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px}
table{border-collapse:collapse;background:#fff;font-size:12px}td,th{border:1px solid #e2e8f0;padding:4px 8px;text-align:left}.muted{color:#64748b}.tbl{flex:1 1 420px}
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
  ts.t,
  ts.bucketMs,
  [
    { name: 'sent (admitted)', color: COLORS.blue, values: perSec(ts.sent) },
    { name: 'adjudicated', color: COLORS.green, values: perSec(ts.adjudicated) },
    { name: 'throttled', color: COLORS.red, values: perSec(ts.throttled) },
    { name: 'failed over', color: COLORS.amber, values: perSec(ts.failedOver) },
  ],
  shade,
  'per second',
)}
${lineChart(
  "Vendor's remaining quota and the limiter's rate",
  ts.t,
  ts.bucketMs,
  [
    { name: 'remaining quota (primary)', color: COLORS.teal, values: ts.remainingQuota },
    { name: 'limiter rate in force (/s)', color: COLORS.purple, values: ts.limiterRate, dashed: true },
  ],
  shade,
  'requests',
)}
${lineChart(
  'Latency percentiles per lane',
  ts.t,
  ts.bucketMs,
  [
    { name: 'pos p50', color: COLORS.green, values: ts.latency.pos.p50 },
    { name: 'pos p95', color: COLORS.amber, values: ts.latency.pos.p95 },
    { name: 'pos p99', color: COLORS.red, values: ts.latency.pos.p99 },
    { name: 'batch p50', color: COLORS.teal, values: ts.latency.batch.p50, dashed: true },
    { name: 'batch p95', color: COLORS.purple, values: ts.latency.batch.p95, dashed: true },
    { name: 'batch p99', color: COLORS.pink, values: ts.latency.batch.p99, dashed: true },
  ],
  shade,
  'ms',
)}
${breakerTimeline(report.breakerTransitions as Array<{ at: number; key: string; to: string }>, endMs)}
</div>
<h2>Totals</h2><div class="grid2">
${barChart(
  'Outcomes by kind',
  Object.entries(report.outcomes as Record<string, number>).map(([k, v]) => [k, v, outcomeColor[k]]),
)}
${barChart(
  'Reject codes by group',
  [...groups.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v, COLORS.amber]),
)}
${barChart(
  'Vendor answers by HTTP status',
  Object.entries(report.statuses as Record<string, number>).map(([k, v]) => [
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
  ['correlation id', 'lane', 'outcome', 'ms'],
  (report.slowest as Array<Json>).map((s) => [s.correlationId, s.lane, s.kind, s.elapsedMs]),
)}
${table(
  'Dead-lettered claims',
  ['correlation id', 'reason'],
  (report.deadLettered as Array<Json>).slice(0, 50).map((d) => [d.correlationId, d.reason]),
)}
</div>
</main></body></html>
`;
}
