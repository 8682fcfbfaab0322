/** Human units for counters and tables: binary bytes (KiB/MiB), durations, counts. Pure. */

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;

/** 0 B, 999 B, 1.50 KiB, 12.3 MiB, 256 MiB. Three significant digits past bytes. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes)) return '—';
  const sign = bytes < 0 ? '-' : '';
  let n = Math.abs(bytes);
  let unit = 0;
  while (n >= 1024 && unit < BYTE_UNITS.length - 1) {
    n /= 1024;
    unit += 1;
  }
  if (unit === 0) return `${sign}${Math.round(n)} B`;
  // 1023.9 KiB would print as "1024 KiB": round first, then promote.
  const digits = n < 10 ? 2 : n < 100 ? 1 : 0;
  if (Number(n.toFixed(digits)) >= 1024 && unit < BYTE_UNITS.length - 1) {
    return `${sign}1.00 ${BYTE_UNITS[unit + 1]}`;
  }
  return `${sign}${n.toFixed(digits)} ${BYTE_UNITS[unit]}`;
}

export function formatRate(bytesPerSecond: number | null | undefined): string {
  if (bytesPerSecond === null || bytesPerSecond === undefined) return '—';
  return `${formatBytes(bytesPerSecond)}/s`;
}

/** 0 ms, 4.2 ms, 850 ms, 1.25 s, 42.0 s, 3m 07s, 2h 05m. */
export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 0) return `-${formatMs(-ms)}`;
  if (ms === 0) return '0 ms';
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 10) return `${s.toFixed(2)} s`;
  if (s < 60) return `${s.toFixed(1)} s`;
  const totalSeconds = Math.floor(s);
  const minutes = Math.floor(totalSeconds / 60);
  if (minutes < 60) return `${minutes}m ${String(totalSeconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

// One formatter for every count: `toLocaleString` builds a new one per call, at 20 Hz per counter.
const COUNT_FORMAT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** 12,345 (grouping fixed to en-US so widths do not depend on the locale). */
export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return COUNT_FORMAT.format(Math.round(n));
}

/** Session-relative time: 12.345 s. */
export function formatClock(ms: number): string {
  return `${(ms / 1000).toFixed(3)} s`;
}

/** "1 line", "2 lines", "1,024 lines": the count and the word, singular for exactly one. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** How long ago, coarse and steady: "just now", "12 s", "3 min", "2 h 05 min", "4 d". */
export function formatAge(ms: number): string {
  if (!Number.isFinite(ms) || ms < 1000) return 'just now';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return `${h} h ${String(min % 60).padStart(2, '0')} min`;
  return `${Math.floor(h / 24)} d`;
}
