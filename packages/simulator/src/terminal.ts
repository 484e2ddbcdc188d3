// Terminal output of rxgate-sim: lines fitted to the terminal's width, and the progress line.
// Pure functions of their inputs (the width and the clock readings are parameters), so tests
// check them without a terminal; the CLI passes `columns` of the stream it writes to.

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are what it matches
const ANSI = /\x1b\[[0-9;]*m/g;

/** The text without its color escapes. */
export function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

/** The columns a string takes on a terminal: escapes take none. */
export function visibleWidth(s: string): number {
  return [...stripAnsi(s)].length;
}

/**
 * Every line wrapped at spaces to at most `width` columns. A continued line is indented two
 * columns past the indent of the line it continues, so a wrapped list still reads as one item;
 * a word longer than a line is cut. Lines that fit are left exactly as they are.
 */
export function fitToWidth(text: string, width: number | undefined): string {
  if (width === undefined || !Number.isFinite(width) || width < 20) return text;
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width))
    .join('\n');
}

function wrapLine(line: string, width: number): string[] {
  if (visibleWidth(line) <= width) return [line];
  const lead = /^ */.exec(line)![0];
  const indent = ' '.repeat(Math.min(lead.length + 2, Math.floor(width / 2)));
  const out: string[] = [];
  let current = lead;
  let empty = true;
  for (const chunk of line.slice(lead.length).match(/\S+\s*/g) ?? []) {
    if (empty || visibleWidth((current + chunk).trimEnd()) <= width) {
      current += chunk;
      empty = false;
      continue;
    }
    out.push(current.trimEnd());
    current = indent + chunk;
  }
  out.push(current.trimEnd());
  // A single word wider than the line: cut it (escapes dropped, so the cut cannot split one).
  return out.flatMap((l) => {
    if (visibleWidth(l) <= width) return [l];
    const chars = [...l.replace(ANSI, '')];
    const pieces = [chars.slice(0, width).join('')];
    for (let i = width; i < chars.length; i += width - indent.length)
      pieces.push(indent + chars.slice(i, i + width - indent.length).join(''));
    return pieces;
  });
}

/** What the progress line knows about a run. */
export interface ProgressState {
  /** Claims settled (an outcome each) so far. */
  readonly settled: number;
  /** Claims submitted so far. */
  readonly submitted: number;
  /** Claims the run will submit, when it is a count. */
  readonly totalClaims: number | undefined;
  /** Time into the run (simulated in virtual time, real otherwise), in milliseconds. */
  readonly elapsedMs: number;
  /** How long the traffic lasts, when it is a duration. */
  readonly durationMs: number | undefined;
  /** Real time since the run started, in milliseconds: the rate and the ETA are wall-clock. */
  readonly wallMs: number;
  /** `simulated` in virtual time, `elapsed` in real time. */
  readonly timeLabel: 'simulated' | 'elapsed';
  /** What is counted. @default 'claims' */
  readonly counting?: 'claims' | 'requests';
}

/** How far the run is, 0 to 1: by claims or by time, whichever end it is nearer. */
export function progressFraction(p: ProgressState): number {
  const byClaims = p.totalClaims ? p.settled / p.totalClaims : 0;
  const byTime = p.durationMs ? p.elapsedMs / p.durationMs : 0;
  const f = p.totalClaims || p.durationMs ? Math.max(byClaims, byTime) : p.settled / Math.max(1, p.submitted);
  return Math.min(1, Math.max(0, f));
}

/**
 * One progress line of at most `width` columns: a bar, the percentage, claims done (of the
 * total), time elapsed of the run's length, the rate (claims per wall-clock second) and the
 * time left. The least useful parts go first when the terminal is narrow; the bar takes what
 * is left.
 */
export function progressLine(p: ProgressState, width: number): string {
  const f = progressFraction(p);
  const wallS = p.wallMs / 1000;
  const rate = wallS > 0 ? p.settled / wallS : 0;
  const what = p.counting ?? 'claims';
  const parts = [
    `${Math.floor(f * 100)
      .toString()
      .padStart(3)}%`,
    p.totalClaims
      ? `${p.settled.toLocaleString('en')}/${p.totalClaims.toLocaleString('en')} ${what}`
      : `${p.settled.toLocaleString('en')} ${what}`,
    p.durationMs
      ? `${formatDuration(p.elapsedMs)}/${formatDuration(p.durationMs)} ${p.timeLabel}`
      : `${formatDuration(p.elapsedMs)} ${p.timeLabel}`,
    `${formatRate(rate)} ${what}/s`,
    `ETA ${f >= 1 ? '0s' : f > 0.005 && wallS > 0 ? formatDuration((p.wallMs * (1 - f)) / f) : '…'}`,
  ];
  // Dropped first when narrow: the rate, then the time, then the count.
  const keep = [0, 4, 1, 2, 3];
  for (let n = keep.length; n >= 1; n--) {
    const text = parts.filter((_, i) => keep.slice(0, n).includes(i)).join('  ');
    const room = width - visibleWidth(text) - 3;
    if (room >= 10 || n === 1) {
      const barWidth = Math.max(0, Math.min(40, room));
      if (barWidth < 3) return cutTo(text, width);
      const filled = Math.round(f * barWidth);
      return cutTo(`[${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}] ${text}`, width);
    }
  }
  return '';
}

function cutTo(s: string, width: number): string {
  return [...s].slice(0, Math.max(0, width)).join('');
}

/** 950ms, 42s, 3m05s, 2h07m. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '…';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

function formatRate(r: number): string {
  if (r >= 10_000) return `${Math.round(r / 1000).toLocaleString('en')}k`;
  if (r >= 100) return Math.round(r).toLocaleString('en');
  return r.toFixed(1);
}
