import type { AuditRecord } from '@rxgate/router';
import type { RunResult } from './runner.js';

/** The timeline of each traced claim: every attempt, verdict, wait and decision, in order. */
export function formatTimeline(r: RunResult, asked: readonly string[] = []): string {
  const lines: string[] = [];
  const brokenOnes = r.broken.filter((b) => !asked.includes(b.correlationId));
  lines.push(
    `rxgate-sim replay · ${r.scenario.name} · seed ${r.scenario.seed} · hash ${r.hash} · ${r.claims.toLocaleString('en')} claims`,
  );
  if (brokenOnes.length === 0) lines.push('No claim broke an invariant in this run.');
  else lines.push(`${brokenOnes.length} claim(s) broke an invariant:`);
  for (const trace of r.broken) {
    const first = trace.records[0]?.at;
    lines.push('');
    lines.push(
      `claim #${trace.index} · correlation ${trace.correlationId} · lane ${trace.lane}${asked.includes(trace.correlationId) ? ' (asked for)' : ''}`,
    );
    if (trace.records.length === 0) lines.push('  (no audit records kept)');
    for (const rec of trace.records) lines.push(`  ${describe(rec, first ?? rec.at)}`);
  }
  for (const id of asked)
    if (!r.broken.some((b) => b.correlationId === id)) lines.push(`\\n${id}: no such claim in this run`);
  return lines.join('\n');
}

function describe(rec: AuditRecord, t0: number): string {
  const at = `+${(rec.at - t0).toFixed(1).padStart(9)} ms`;
  if (rec.type === 'attempt') {
    return `${at}  attempt ${rec.attempt} → ${rec.node}: ${rec.verdict}${rec.status === undefined ? '' : ` (${rec.status})`}${rec.codes ? ` codes ${rec.codes.join(',')}` : ''}`;
  }
  if (rec.type === 'decision') {
    return `${at}  decide ${rec.decision}${rec.waitMs === undefined ? '' : ` (wait ${Math.round(rec.waitMs)} ms)`}${rec.node ? ` on ${rec.node}` : ''}${rec.snapshotVersion ? ` [crosswalk ${rec.snapshotVersion}]` : ''}`;
  }
  return `${at}  outcome ${String(rec.outcome?.kind)}${rec.outcome?.reason ? ` (${String(rec.outcome.reason)})` : ''} · path ${(rec.path ?? []).join(' › ')}`;
}
