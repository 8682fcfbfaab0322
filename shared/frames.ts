/** Frame summaries: what hosts show of each line on the wire (bytes stay in main). */

/** What a line on the wire is, as the classifier says (oversize lines are never classified). */
export const FRAME_KIND_LIST = [
  'request',
  'response',
  'notification',
  'batch',
  'invalid',
  'parse-error',
  'empty',
] as const;

export type FrameKind = (typeof FRAME_KIND_LIST)[number];

export type FrameDirection = 'in' | 'out';

export interface FrameSummary {
  seq: number;
  dir: FrameDirection;
  t: number;
  /** Stream offset (incoming frames). */
  offset: number | null;
  bytes: number;
  kind: FrameKind | 'oversize';
  id?: string | number | null;
  method?: string;
  /** Parse problem or pollution description. */
  problem?: string;
  /** First bytes of the frame as text (a preview, never the whole of a large frame). */
  preview: string;
  /** Whether the full bytes are still held in main's frame store. */
  held: boolean;
}

/** One page of a frame's bytes, for the paged viewer. */
export interface FramePage {
  seq: number;
  offset: number;
  length: number;
  totalBytes: number;
  /** The page as text (UTF-8, invalid sequences replaced). */
  text: string;
  /** sha-256 of the whole frame, hex. */
  sha256: string | null;
}

/** Where a payload search goes on: a frame, and a byte offset inside it (a large frame is
 *  searched across several pages). */
export interface FrameSearchCursor {
  seq: number;
  offset: number;
}

/** Text around a match, and where the match is in it (UTF-16 indices, for highlighting). */
export interface FrameSnippet {
  text: string;
  matchStart: number;
  matchLength: number;
}

/** A frame whose payload holds the query: its summary's facts and the first match. */
export interface FrameSearchHit extends FrameSnippet {
  seq: number;
  dir: FrameDirection;
  t: number;
  kind: FrameKind | 'oversize';
  id?: string | number | null;
  method?: string;
  bytes: number;
  /** Byte offset of the first match in the frame. */
  offset: number;
  /** Only the frame's preview was searched: its bytes are no longer held. */
  previewOnly?: true;
}

/** One page of a payload search (`frame:search`): hits oldest first, and where to go on. */
export interface FrameSearchPage {
  hits: FrameSearchHit[];
  /** Where the next page starts; null once the newest frame was searched. */
  next: FrameSearchCursor | null;
  scannedFrames: number;
  scannedBytes: number;
  elapsedMs: number;
  /** A newer search of the same session (same searchId's owner) superseded this one. */
  superseded: boolean;
  /** Frames searched by their preview only (their bytes were dropped for the store's budget). */
  previewOnly: number;
  /** The frames the store lists: older ones were evicted (counted, not searched). */
  firstSeq: number;
  lastSeq: number;
}

/** One match inside one frame (`frame:find`). */
export interface FrameFindHit extends FrameSnippet {
  /** Byte offset of the match in the frame. */
  offset: number;
}

/** A page of matches inside one frame, from a byte offset on. */
export interface FrameFindPage {
  seq: number;
  totalBytes: number;
  hits: FrameFindHit[];
  /** Byte offset to go on from; null once the end of the frame was searched. */
  next: number | null;
  scannedBytes: number;
}

/** Longest query a payload search takes (bytes of UTF-8). */
export const SEARCH_QUERY_MAX = 1024;
