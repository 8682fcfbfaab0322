/**
 * Display formatting for frame data: byte sizes, times since session start, direction
 * arrows and one-line previews. Pure; used by FramesPanel and FrameViewer.
 */
import type { FrameDirection } from '../../../shared/frames.js';

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'] as const;

/** Human bytes with binary units: `512 B`, `1.5 KiB`, `64.0 MiB`. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  // Three significant digits at most: 1.50 KiB, 15.0 KiB, 150 KiB.
  const digits = value < 10 ? 2 : value < 100 ? 1 : 0;
  return `${value.toFixed(digits)} ${UNITS[unit]}`;
}

/** Exact bytes with digit grouping, for titles: `1,234,567 bytes`. */
export function formatExactBytes(bytes: number): string {
  const grouped = Math.round(bytes)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${grouped} ${bytes === 1 ? 'byte' : 'bytes'}`;
}

/** Milliseconds since session start as seconds: `12.345 s`. */
export function formatTime(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  return `${(ms / 1000).toFixed(3)} s`;
}

/** → for client-to-server ("out"), ← for server-to-client ("in"). */
export function directionArrow(dir: FrameDirection): string {
  return dir === 'out' ? '→' : '←';
}

export function directionLabel(dir: FrameDirection): string {
  return dir === 'out' ? 'client → server (stdin)' : 'server → client (stdout)';
}

// C0 controls (including tab/newline/CR), DEL and C1 controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: replacing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]+/g;

/** A single display line: control characters become one space, long text ends with `…`. */
export function singleLine(text: string, maxChars = 240): string {
  const clipped = text.length > maxChars * 2 ? text.slice(0, maxChars * 2) : text;
  const flat = clipped.replace(CONTROL, ' ');
  return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
}

/** An id as shown in the log: strings quoted so `"1"` and `1` differ, as on the wire. */
export function formatId(id: string | number | null | undefined): string {
  if (id === undefined) return '';
  if (id === null) return 'null';
  return typeof id === 'string' ? JSON.stringify(id) : String(id);
}
