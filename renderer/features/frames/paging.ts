/**
 * The frame viewer's paging plan: which byte ranges of a frame to fetch from main, and what
 * the loaded text allows (pretty JSON, saving). Pure; useFramePages drives it.
 *
 * Frames ≤ 256 KiB are fetched whole in one request (no page seam splits a UTF-8 sequence, and
 * they can be pretty-printed). Larger frames get a 64 KiB head and a 16 KiB tail, then "load
 * more" in 64 KiB pages forward from the head, up to LOAD_CAP in total: a 64 MiB frame never
 * reaches the renderer whole.
 */

import { utf8Bytes } from '../../../shared/result-audit.js';
export const KIB = 1024;
export const HEAD_BYTES = 64 * KIB;
export const TAIL_BYTES = 16 * KIB;
export const PAGE_BYTES = 64 * KIB;
/** Frames up to this size are fetched whole and may be pretty-printed. */
export const WHOLE_MAX_BYTES = 256 * KIB;
export const PRETTY_MAX_BYTES = WHOLE_MAX_BYTES;
/** Most bytes the viewer loads for one frame. */
export const LOAD_CAP_BYTES = 1024 * KIB;
/** Largest frame "Save raw bytes" offers. */
export const SAVE_MAX_BYTES = 1024 * KIB;

export interface PageRequest {
  offset: number;
  length: number;
}

export interface Segment {
  offset: number;
  /** Bytes covered (as reported by main, not string length). */
  length: number;
  text: string;
}

export interface LoadedFrame {
  totalBytes: number;
  sha256: string | null;
  /** Contiguous bytes from offset 0; "load more" extends it. */
  head: Segment;
  /** The last bytes of a large frame, or null when the head reaches the end. */
  tail: Segment | null;
}

/** The first request for a frame of `totalBytes`. */
export function planHead(totalBytes: number): PageRequest {
  const total = Math.max(0, totalBytes);
  return { offset: 0, length: total <= WHOLE_MAX_BYTES ? total : HEAD_BYTES };
}

/** The tail request once the head is in, or null when the head already covers the frame. */
export function planTail(totalBytes: number, headEnd: number): PageRequest | null {
  if (totalBytes <= headEnd) return null;
  const offset = Math.max(headEnd, totalBytes - TAIL_BYTES);
  return { offset, length: totalBytes - offset };
}

export function headEnd(frame: LoadedFrame): number {
  return frame.head.offset + frame.head.length;
}

export function loadedBytes(frame: LoadedFrame): number {
  return frame.head.length + (frame.tail?.length ?? 0);
}

/** Bytes between the end of the head and the tail (or the end of the frame) not loaded. */
export function gapBytes(frame: LoadedFrame): number {
  const limit = frame.tail ? frame.tail.offset : frame.totalBytes;
  return Math.max(0, limit - headEnd(frame));
}

export function isComplete(frame: LoadedFrame): boolean {
  return gapBytes(frame) === 0;
}

/** The next "load more" page, or null when complete or the cap is reached. */
export function nextPage(frame: LoadedFrame, cap = LOAD_CAP_BYTES): PageRequest | null {
  const gap = gapBytes(frame);
  const budget = cap - loadedBytes(frame);
  if (gap <= 0 || budget <= 0) return null;
  return { offset: headEnd(frame), length: Math.min(PAGE_BYTES, gap, budget) };
}

/** Whether more bytes remain but the cap forbids loading them. */
export function capReached(frame: LoadedFrame, cap = LOAD_CAP_BYTES): boolean {
  return gapBytes(frame) > 0 && loadedBytes(frame) >= cap;
}

/** The frame with a page appended to its head; pages that do not continue it are ignored. */
export function appendPage(frame: LoadedFrame, page: Segment): LoadedFrame {
  if (page.offset !== headEnd(frame) || page.length <= 0) return frame;
  const length = Math.min(page.length, gapBytes(frame));
  return {
    ...frame,
    head: {
      offset: frame.head.offset,
      length: frame.head.length + length,
      text: frame.head.text + page.text,
    },
  };
}

/** The whole frame's text when every byte is loaded, else null. */
export function fullText(frame: LoadedFrame): string | null {
  if (!isComplete(frame)) return null;
  return frame.head.text + (frame.tail?.text ?? '');
}

/** UTF-8 length of a string as TextEncoder would encode it (lone surrogates → 3 bytes). */
export const utf8Length: (text: string) => number = utf8Bytes;

export type SaveDecision = { ok: true; text: string } | { ok: false; reason: string };

/** Whether "Save raw bytes" can write exactly the frame's bytes from the loaded text. */
export function saveDecision(frame: LoadedFrame | null, held: boolean): SaveDecision {
  if (!held) return { ok: false, reason: 'The frame’s bytes are no longer held in main.' };
  if (!frame) return { ok: false, reason: 'The frame is still loading.' };
  if (frame.totalBytes > SAVE_MAX_BYTES) {
    return { ok: false, reason: 'Only frames up to 1 MiB can be saved from the viewer.' };
  }
  const text = fullText(frame);
  if (text === null) {
    return { ok: false, reason: 'Load the whole frame first (use “Load more”).' };
  }
  // Text came through UTF-8 decoding: invalid sequences (or one split across pages) were
  // replaced, and re-encoding would not give back the frame's bytes.
  if (utf8Length(text) !== frame.totalBytes) {
    return {
      ok: false,
      reason: 'The frame is not valid UTF-8, so its text cannot reproduce the exact bytes.',
    };
  }
  return { ok: true, text };
}
