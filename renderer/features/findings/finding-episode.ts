/**
 * Words for a finding's episode and figures (pure): "active for 3.1 s", "resolved at 5.8 s,
 * after 3.4 s", "queue depth 13,641 when raised · peak 40,787 at 6.2 s". A figure always says
 * at what moment it was taken, so it never reads as a live counter.
 */
import type { FindingFigure } from '../../../shared/findings';
import { formatBytes, formatClock, formatCount, formatMs } from '../../components/format';
import type { FindingGroup } from '../../store/selectors';

export function episodeLine(g: FindingGroup, nowMs: number | null): string {
  const since = g.since ?? g.firstAt;
  if (g.state === 'active') {
    const held = nowMs === null ? '' : ` (${formatMs(Math.max(0, nowMs - since))})`;
    return `active since ${formatClock(since)}${held}`;
  }
  if (g.state === 'resolved' && g.resolvedAt !== null) {
    const after = formatMs(Math.max(0, g.resolvedAt - since));
    return g.resolvedBy === 'session-end'
      ? `held until the session ended at ${formatClock(g.resolvedAt)}, after ${after}`
      : `resolved at ${formatClock(g.resolvedAt)}, after ${after}`;
  }
  return g.count > 1
    ? `seen ${formatCount(g.count)} times, last at ${formatClock(g.lastAt)}`
    : `seen at ${formatClock(g.lastAt)}`;
}

export function figureValue(f: Pick<FindingFigure, 'value' | 'unit'>): string {
  if (f.unit === 'ms') return formatMs(f.value);
  if (f.unit === 'bytes') return formatBytes(f.value);
  return formatCount(f.value);
}

/** One phrase per measure: its value when raised and, when it grew, its peak and when. */
export function figurePhrases(figures: readonly FindingFigure[]): string[] {
  const byLabel = new Map<string, { raised?: FindingFigure; peak?: FindingFigure }>();
  for (const f of figures) {
    const e = byLabel.get(f.label) ?? {};
    e[f.at] = f;
    byLabel.set(f.label, e);
  }
  const out: string[] = [];
  for (const [label, { raised, peak }] of byLabel) {
    // Nothing to say about a measure that stayed at zero (no frame was pending, say).
    if ((raised?.value ?? 0) === 0 && (peak?.value ?? 0) === 0) continue;
    const parts: string[] = [];
    if (raised) parts.push(`${figureValue(raised)} when raised`);
    if (peak && (!raised || peak.value > raised.value))
      parts.push(`peak ${figureValue(peak)} at ${formatClock(peak.t)}`);
    out.push(`${label} ${parts.join('; ')}`);
  }
  return out;
}
