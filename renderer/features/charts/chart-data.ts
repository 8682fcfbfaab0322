/**
 * Shapes live data for drawing, cheaply: SVG cost grows with every point and dot recharts draws,
 * so series are reduced to a bounded number of buckets that keep the peaks (max per bucket).
 */
import type { SeriesPoint } from '../../../shared/session-info';
import type { FrameSize } from '../../store/types';

type NumericKey = Exclude<keyof SeriesPoint, 't'>;

/** At most `max` points; each bucket keeps its last time and the max of every series. */
export function decimate(points: readonly SeriesPoint[], max: number): SeriesPoint[] {
  if (points.length <= max) return points as SeriesPoint[];
  const size = Math.ceil(points.length / max);
  const out: SeriesPoint[] = [];
  for (let i = 0; i < points.length; i += size) {
    const bucket = points.slice(i, i + size);
    const last = bucket[bucket.length - 1];
    const merged: SeriesPoint = { ...last };
    for (const key of Object.keys(last) as (keyof SeriesPoint)[]) {
      if (key === 't') continue;
      merged[key as NumericKey] = Math.max(...bucket.map((p) => p[key as NumericKey]));
    }
    out.push(merged);
  }
  return out;
}

export interface SizeDot {
  t: number;
  bytes: number;
}

/**
 * The largest frame of each direction per time bucket inside the domain (at most `buckets`
 * dots per direction). Sizes are clamped to ≥ 1 byte for the log scale (empty lines are 0).
 */
export function frameSizeDots(
  sizes: readonly FrameSize[],
  domain: [number, number],
  buckets: number,
): { incoming: SizeDot[]; outgoing: SizeDot[] } {
  const [start, end] = domain;
  const width = Math.max(1, (end - start) / buckets);
  const maxIn = new Map<number, SizeDot>();
  const maxOut = new Map<number, SizeDot>();
  for (const s of sizes) {
    if (s.t < start || s.t > end) continue;
    const b = Math.min(buckets - 1, Math.floor((s.t - start) / width));
    const target = s.dir === 'in' ? maxIn : maxOut;
    const prev = target.get(b);
    const bytes = Math.max(1, s.bytes);
    if (!prev || bytes > prev.bytes) target.set(b, { t: s.t, bytes });
  }
  const sorted = (m: Map<number, SizeDot>) => [...m.values()].sort((a, b) => a.t - b.t);
  return { incoming: sorted(maxIn), outgoing: sorted(maxOut) };
}
