/**
 * Payload search: the frames whose bytes hold a text (`frame:search`), and the matches inside
 * one frame (`frame:find`). It runs where the bytes are (main's frame store, or a trace file),
 * so the renderer never receives a frame whole.
 *
 * Bytes are searched as they came on the wire (a query's UTF-8 bytes; case folded for ASCII
 * letters unless asked to match case), in windows that overlap by the query's length, so a
 * match across the chunks a large frame arrived in, or across two windows, is found once.
 * Bounded: a page scans for at most `budgetMs` (in slices of a few MiB, yielding to the event
 * loop between them) and stops at `maxHits`, returning where to go on; a newer search of the
 * same session supersedes it at the next slice (`isCurrent`).
 */
import type {
  FrameDirection,
  FrameFindHit,
  FrameSearchCursor,
  FrameSearchHit,
  FrameSearchPage,
  FrameSnippet,
  FrameSummary,
} from '../../../shared/frames.js';
import type { FrameBytes } from '../transport/frame-bytes.js';
import type { FrameStore } from './frame-store.js';

export interface Needle {
  bytes: Buffer;
  /** Fold ASCII letters (a case-insensitive search). */
  fold: boolean;
}

/** ASCII upper → lower; every other byte as it is. */
const FOLD = new Uint8Array(256).map((_, b) => (b >= 0x41 && b <= 0x5a ? b + 0x20 : b));

function folded(b: Buffer): Buffer {
  const out = Buffer.allocUnsafe(b.length);
  for (let i = 0; i < b.length; i++) out[i] = FOLD[b[i]];
  return out;
}

export function needleOf(query: string, caseSensitive: boolean): Needle {
  const bytes = Buffer.from(query, 'utf8');
  return { bytes: caseSensitive ? bytes : folded(bytes), fold: !caseSensitive };
}

/** Bytes of a frame looked at per window (a window is one indexOf). */
const WINDOW_BYTES = 1024 * 1024;

/**
 * The first match of `n` starting in [from, from + maxBytes) of `data`, and where a further
 * scan goes on from (`next`; ≥ `lastStart(data, n)` once the whole frame was scanned).
 */
export function findFirst(
  data: FrameBytes,
  n: Needle,
  from: number,
  maxBytes: number,
  windowBytes = WINDOW_BYTES,
): { at: number | null; next: number } {
  const q = n.bytes.length;
  const end = lastStart(data, n);
  const stop = Math.min(end, from + Math.max(1, maxBytes));
  let start = Math.max(0, from);
  while (start < stop) {
    const windowStop = Math.min(stop, start + windowBytes);
    // The window reaches q - 1 bytes past its last start: a match across its edge is whole.
    let window = data.subarray(start, windowStop + q - 1);
    if (n.fold) window = folded(window);
    const i = window.indexOf(n.bytes);
    if (i !== -1 && start + i < stop) return { at: start + i, next: start + i + 1 };
    start = windowStop;
  }
  return { at: null, next: Math.max(from, stop) };
}

/** One past the last byte offset a match can start at. */
export function lastStart(data: FrameBytes, n: Needle): number {
  return Math.max(0, data.length - n.bytes.length + 1);
}

const isContinuation = (b: number | undefined): boolean => b !== undefined && (b & 0xc0) === 0x80;

function byteAt(data: FrameBytes, i: number): number | undefined {
  return data.subarray(i, i + 1)[0];
}

/** Control characters shown as spaces (same UTF-16 length: indices stay right). */
function oneLine(s: string): string {
  let out = '';
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x7f) continue;
    out += `${s.slice(last, i)} `;
    last = i + 1;
  }
  return last === 0 ? s : out + s.slice(last);
}

/**
 * The text around a match at byte `at` (`before` and `after` bytes, moved inwards so no UTF-8
 * sequence is cut) and where the match lies in it.
 */
export function snippetAt(
  data: FrameBytes,
  at: number,
  matchBytes: number,
  before = 48,
  after = 120,
): FrameSnippet {
  let start = Math.max(0, at - before);
  while (start < at && isContinuation(byteAt(data, start))) start += 1;
  const matchEnd = Math.min(data.length, at + matchBytes);
  let end = Math.min(data.length, matchEnd + after);
  while (end > matchEnd && isContinuation(byteAt(data, end))) end -= 1;
  const pre = oneLine(data.subarray(start, at).toString('utf8'));
  const match = oneLine(data.subarray(at, matchEnd).toString('utf8'));
  const post = oneLine(data.subarray(matchEnd, end).toString('utf8'));
  return { text: pre + match + post, matchStart: pre.length, matchLength: match.length };
}

/** One frame as a search walks it: its summary, and its bytes while they are held. */
export interface SearchFrame {
  summary: FrameSummary;
  data: FrameBytes | null;
}

/** Where the frames are: main's store, or a trace file. */
export interface SearchSource {
  range(): { first: number; last: number } | Promise<{ first: number; last: number }>;
  /** Frames from `seq` on, oldest first. Walked within one slice (no event-loop turn). */
  from(seq: number): Iterable<SearchFrame> | AsyncIterable<SearchFrame>;
}

export interface SearchOptions {
  needle: Needle;
  from: FrameSearchCursor | null;
  maxHits: number;
  budgetMs: number;
  dir?: FrameDirection;
  /** False once a newer search of the same session began: this one stops. */
  isCurrent(): boolean;
}

/** Bytes and frames scanned between two turns of the event loop. */
const SLICE_BYTES = 4 * 1024 * 1024;
const SLICE_FRAMES = 2000;

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** One page of a payload search over `source` (see the header). */
export async function searchFrames(
  source: SearchSource,
  o: SearchOptions,
): Promise<FrameSearchPage> {
  const started = performance.now();
  const range = await source.range();
  const page: FrameSearchPage = {
    hits: [],
    next: null,
    scannedFrames: 0,
    scannedBytes: 0,
    elapsedMs: 0,
    superseded: false,
    previewOnly: 0,
    firstSeq: range.first,
    lastSeq: range.last,
  };
  let cursor: FrameSearchCursor = o.from ?? { seq: range.first, offset: 0 };
  if (cursor.seq < range.first) cursor = { seq: range.first, offset: 0 };
  for (;;) {
    if (!o.isCurrent()) {
      page.superseded = true;
      page.next = cursor;
      break;
    }
    const slice = await searchSlice(source, o, cursor, page);
    cursor = slice.cursor;
    page.next = slice.exhausted ? null : cursor;
    if (slice.exhausted) break;
    if (page.hits.length >= o.maxHits || performance.now() - started >= o.budgetMs) break;
    await turn();
  }
  page.elapsedMs = Math.round((performance.now() - started) * 10) / 10;
  return page;
}

/** Frames from `cursor` on until a slice's bytes or frames are used, or the hits are enough. */
async function searchSlice(
  source: SearchSource,
  o: SearchOptions,
  start: FrameSearchCursor,
  page: FrameSearchPage,
): Promise<{ cursor: FrameSearchCursor; exhausted: boolean }> {
  let cursor = start;
  let bytes = 0;
  let frames = 0;
  for await (const { summary, data } of source.from(cursor.seq)) {
    const at = summary.seq === cursor.seq ? cursor.offset : 0;
    const next = { seq: summary.seq + 1, offset: 0 };
    if (o.dir !== undefined && summary.dir !== o.dir) {
      cursor = next;
      continue;
    }
    if (data === null) {
      const hit = previewHit(summary, o.needle);
      page.previewOnly += 1;
      page.scannedFrames += 1;
      if (hit) page.hits.push(hit);
    } else {
      const r = findFirst(data, o.needle, at, SLICE_BYTES - bytes);
      bytes += r.next - at;
      page.scannedBytes += Math.max(0, r.next - at);
      if (r.at !== null) page.hits.push(hitOf(summary, data, r.at, o.needle));
      else if (r.next < lastStart(data, o.needle)) {
        // The slice ran out inside this frame: the next one goes on from here.
        return { cursor: { seq: summary.seq, offset: r.next }, exhausted: false };
      }
      page.scannedFrames += 1;
    }
    cursor = next;
    frames += 1;
    if (page.hits.length >= o.maxHits || bytes >= SLICE_BYTES || frames >= SLICE_FRAMES)
      return { cursor, exhausted: false };
  }
  return { cursor, exhausted: true };
}

function hitOf(summary: FrameSummary, data: FrameBytes, at: number, n: Needle): FrameSearchHit {
  return {
    seq: summary.seq,
    dir: summary.dir,
    t: summary.t,
    kind: summary.kind,
    ...(summary.id === undefined ? {} : { id: summary.id }),
    ...(summary.method === undefined ? {} : { method: summary.method }),
    bytes: summary.bytes,
    offset: at,
    ...snippetAt(data, at, n.bytes.length),
  };
}

/** A frame whose bytes were dropped: its preview (its first bytes) is all there is to search. */
function previewHit(summary: FrameSummary, n: Needle): FrameSearchHit | null {
  if (summary.preview === '') return null;
  const data = Buffer.from(summary.preview, 'utf8');
  const r = findFirst(data, n, 0, data.length);
  return r.at === null ? null : { ...hitOf(summary, data, r.at, n), previewOnly: true };
}

/** Main's frame store as a search walks it. */
export function storeSource(store: FrameStore): SearchSource {
  return { range: () => store.seqRange(), from: (seq) => store.walk(seq) };
}

/** Bytes of one frame scanned by one `frame:find` call. */
const FIND_BYTES = 32 * 1024 * 1024;

/** The matches inside one frame from byte `from` on: at most `maxHits`, and where to go on. */
export function findInFrame(
  data: FrameBytes,
  n: Needle,
  from: number,
  maxHits: number,
): { hits: FrameFindHit[]; next: number | null; scannedBytes: number } {
  const hits: FrameFindHit[] = [];
  const end = lastStart(data, n);
  let at = Math.max(0, from);
  const limit = at + FIND_BYTES;
  while (at < end && hits.length < maxHits && at < limit) {
    const r = findFirst(data, n, at, limit - at);
    if (r.at === null) {
      at = r.next;
      break;
    }
    hits.push({ offset: r.at, ...snippetAt(data, r.at, n.bytes.length) });
    // Matches do not overlap: the next one starts after this one.
    at = r.at + n.bytes.length;
  }
  return { hits, next: at < end ? at : null, scannedBytes: Math.max(0, at - from) };
}
