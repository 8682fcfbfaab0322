/**
 * The frame viewer's window: 64 KiB of a frame at any byte offset ("go to byte", a match of
 * "find in frame"), paged by the host like the head (paging.ts), so a 64 MiB frame is read
 * where its problem is, not only from its start. Pure helpers; FrameNavigator drives them.
 */
import { utf8Bytes } from '../../../shared/result-audit.js';

export const WINDOW_BYTES = 64 * 1024;
/** Bytes of context shown before a match. */
export const BEFORE_BYTES = 256;

export interface FrameWindow {
  /** First byte of `text`. */
  offset: number;
  /** Bytes `text` covers. */
  length: number;
  totalBytes: number;
  text: string;
  /** The context before `offset` (muted), when the window shows a match. */
  before: string;
  /** UTF-16 length of the match at the start of `text` (0: no match to mark). */
  matchChars: number;
}

/** A byte offset typed by a person: decimal (commas, spaces, `_` allowed) or 0x-hex. */
export function parseOffset(typed: string): number | null {
  const t = typed.trim().replace(/[\s,_]/g, '');
  if (t === '') return null;
  const n = /^0x[0-9a-f]+$/i.test(t) ? Number.parseInt(t, 16) : /^\d+$/.test(t) ? Number(t) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/** How many UTF-16 units at the start of `text` cover `bytes` bytes of UTF-8. */
export function charsForBytes(text: string, bytes: number): number {
  let used = 0;
  let i = 0;
  while (i < text.length && used < bytes) {
    const code = text.codePointAt(i) ?? 0;
    const width = code > 0xffff ? 2 : 1;
    used += utf8Bytes(text.slice(i, i + width));
    i += width;
  }
  return i;
}

/** The window's previous and next pages (null at either end). */
export function neighbours(w: FrameWindow): { prev: number | null; next: number | null } {
  const end = w.offset + w.length;
  return {
    prev: w.offset > 0 ? Math.max(0, w.offset - WINDOW_BYTES) : null,
    next: end < w.totalBytes ? end : null,
  };
}
