/** Axis formatters and ticks shared by the live charts (pure). */

import { GIB, KIB, MIB } from '../../../shared/units';

/** Compact axis label: 512, 34K, 1.5M, 8M, 2G (binary units; the legend names the unit). */
export function tickBytes(bytes: number): string {
  const n = Math.abs(bytes);
  const short = (v: number, unit: string): string =>
    `${v < 10 && !Number.isInteger(Number(v.toFixed(1))) ? v.toFixed(1) : Math.round(v)}${unit}`;
  if (n >= GIB) return short(bytes / GIB, 'G');
  if (n >= MIB) return short(bytes / MIB, 'M');
  if (n >= KIB) return short(bytes / KIB, 'K');
  return String(Math.round(bytes));
}

export function tickCount(n: number): string {
  if (Math.abs(n) >= 1_000_000) return `${Math.round(n / 100_000) / 10}M`;
  if (Math.abs(n) >= 10_000) return `${Math.round(n / 1000)}k`;
  return String(Math.round(n));
}

export function tickMs(ms: number): string {
  if (Math.abs(ms) >= 60_000) return `${Math.round(ms / 60_000)}m`;
  if (Math.abs(ms) >= 1000) return `${Math.round(ms / 100) / 10}s`;
  return `${Math.round(ms)}ms`;
}

export function tickSeconds(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 120 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}` : `${s}s`;
}

/** The x-domain of every chart: the window of points, at least 10 s wide so it does not zoom. */
export function windowDomain(
  firstT: number | undefined,
  lastT: number | undefined,
): [number, number] {
  const end = Math.max(lastT ?? 0, 10_000);
  const start = Math.max(0, Math.min(firstT ?? 0, end - 10_000));
  return [start, end];
}

const STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600];

/** Whole-second ticks at a round step, at most `max` of them, inside the domain. */
export function timeTicks(domain: [number, number], max = 7): number[] {
  const span = (domain[1] - domain[0]) / 1000;
  const step = (STEPS_S.find((s) => Math.floor(span / s) + 1 <= max) ?? 7200) * 1000;
  const ticks: number[] = [];
  for (let t = Math.ceil(domain[0] / step) * step; t <= domain[1]; t += step) ticks.push(t);
  return ticks;
}

/** A y-axis fixed by us (recharts then skips its own nice-tick search): [0, top] and its ticks. */
export interface YScale {
  domain: [number, number];
  ticks: number[];
}

const DECIMAL_STEPS = [1, 2, 5];

/**
 * Ticks from 0 past `max`: at most `count` steps, each a round number — powers of two for bytes
 * (512K, 1M, 1.5M read well), 1-2-5 decimals otherwise, whole numbers for `integer`. `min` is
 * the smallest top (an empty series still gets an axis).
 */
export function yScale(
  max: number,
  count: number,
  kind: 'bytes' | 'decimal' | 'integer',
  min = 1,
): YScale {
  const target = Math.max(Number.isFinite(max) ? max : 0, min);
  const raw = target / count;
  let step: number;
  if (kind === 'bytes') step = 2 ** Math.ceil(Math.log2(Math.max(raw, 1)));
  else {
    const magnitude = 10 ** Math.floor(Math.log10(raw));
    const m = DECIMAL_STEPS.find((s) => s * magnitude >= raw) ?? 10;
    step = kind === 'integer' ? Math.max(1, m * magnitude) : m * magnitude;
  }
  const top = Math.ceil(target / step) * step;
  const ticks: number[] = [];
  for (let i = 0; i * step <= top + step / 1e6; i += 1) ticks.push(i * step);
  return { domain: [0, top], ticks };
}

/** Equal number lists (ticks, domains): recharts compares axis props by reference. */
export function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

/** Equal scales: the same domain and ticks. */
export function sameScale(a: YScale, b: YScale): boolean {
  return sameNumbers(a.domain, b.domain) && sameNumbers(a.ticks, b.ticks);
}
