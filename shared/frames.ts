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
