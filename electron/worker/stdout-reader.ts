/**
 * Stdout reader: the server's stdout, chunk by chunk, into classified frames in the outbox.
 *
 * Owns: the line splitter (framing by bytes, the limit), the line classifier, the line still
 * arriving (its pieces) and the whole lines of the chunk being split. Fed by: the transport
 * worker (`push` per pipe read, `end` at EOF, `sealed` from the outbox). Listens: the outbox
 * gets every frame in stream order; `onOversize` hears about lines over the limit.
 *
 * A chunk's whole lines are classified together once the chunk is split (one call into the
 * WebAssembly scanner for ~300 small frames); a short line that spans chunks is joined when it
 * ends and classified the same way; a long one is validated piece by piece at its newline (its
 * pieces are held to its end either way).
 */
import { isUtf8 } from 'node:buffer';
import type { Classified } from '../wire/classify.js';
import type { Outbox, Piece } from './outbox.js';
import { isShared } from './outbox-batch.js';
import {
  createLineSplitter,
  type FramerStats,
  type OversizeInfo,
  type RegionTally,
} from './read/framer.js';
import { LineClassifier } from './read/line-classifier.js';

/**
 * A line that crosses pipe reads and ends within this many bytes is joined and classified like
 * the whole lines of a read (it costs a copy of at most this much); a longer one is validated
 * piece by piece at its end. In a flood of small lines nearly every read ends inside a line:
 * classified piece by piece, those lines kept the streaming scanner's JavaScript hot enough
 * for V8 to compile it, on the cores the flood needs.
 */
const JOIN_MAX = 16 * 1024;
/**
 * A line's pieces are validated at its newline, not as they arrive (or once more than this many
 * bytes of them wait: no line holds more than that and one read unchecked). While the worker
 * validates, the socket fills and the server waits: validated as it came, a long line kept the
 * server waiting for as long as its validation took, and its transfer took that much longer.
 * The work is the same, done when the line is complete; its pieces are held to its end either
 * way.
 */
const DEFER_MAX = 64 * 1024 * 1024;
const NO_CHUNK: Buffer = Buffer.alloc(0);
/** Lines joined here are within the limit already (the splitter checked). */
const NO_LIMIT = 2 ** 31 - 1;

/** The first `length` bytes of a line's pieces, in one buffer (`room` bytes more after them). */
function joinPieces(pieces: readonly Piece[], length: number, room = 0): Buffer {
  const out = Buffer.allocUnsafeSlow(length + room);
  let at = 0;
  for (const p of pieces) {
    const n = Math.min(p.end - p.start, length - at);
    if (n <= 0) break;
    p.chunk.copy(out, at, p.start, p.start + n);
    at += n;
  }
  return out;
}

export class StdoutReader {
  /** Lines that were not JSON (parse errors and empty lines). */
  parseErrors = 0;
  private readonly classifier = new LineClassifier();
  private readonly splitter;
  /** The pieces of the line that spans chunks, so far. */
  private pending: Piece[] = [];
  /** Their bytes; whether each piece's chunk was found valid UTF-8 as a whole (false: not
   *  known); how many of them the classifier has had (the line begun there when any), and the
   *  bytes of those after them. */
  private pendingBytes = 0;
  private readonly pendingUtf8: boolean[] = [];
  private scanned = 0;
  private unscanned = 0;
  /** Arrival time of the chunk being split (all its frames share it). */
  private chunkAt = 0;
  /** The chunk being split, and whether it is valid UTF-8 as a whole (then so is every line
   *  inside it): checked when first asked (a piece of a line held to its end never asks). */
  private chunk = NO_CHUNK;
  private chunkUtf8: boolean | null = null;

  constructor(
    maxFrameBytes: number,
    private readonly outbox: Outbox,
    onOversize: (info: OversizeInfo) => void,
  ) {
    this.splitter = createLineSplitter(maxFrameBytes, {
      // Only without regions (never here): kept exact all the same.
      line: (chunk, start, end, offset) => this.wholeLine(chunk, start, end, offset),
      partial: (chunk, start) => {
        this.hold(chunk, start, chunk.length);
        if (this.unscanned > DEFER_MAX) this.catchUp();
      },
      lineEnd: (chunk, end, length, offset) => this.lineEnd(chunk, end, length, offset),
      region: (chunk, start, end, offset, limit, tally) =>
        this.region(chunk, start, end, offset, limit, tally),
      oversize: (info) => {
        if (info.phase === 'start') this.drop();
        onOversize(info);
      },
      gap: () => this.drop(),
    });
  }

  get stats(): Readonly<FramerStats> {
    return this.splitter.stats;
  }

  setMaxFrameBytes(n: number): void {
    this.splitter.setMaxFrameBytes(n);
  }

  /** One pipe read, arrived at `t` (session clock). */
  push(chunk: Buffer, t: number): void {
    this.chunkAt = t;
    this.chunk = chunk;
    this.chunkUtf8 = null;
    this.splitter.push(chunk);
    this.chunk = NO_CHUNK; // (not held past its read)
    this.outbox.chunkDone();
  }

  /** Bytes a tap relayed but could not copy here: the line they fall in is dropped. */
  gap(bytes: number): void {
    this.splitter.gap?.(bytes);
  }

  /** Stdout ended (or was abandoned): the bytes of an unterminated last line. */
  end(): number {
    return this.splitter.end();
  }

  /** Bytes of the line still arriving (0 between lines): where the next read goes depends on it. */
  get lineBytes(): number {
    return this.pendingBytes;
  }

  /** The outbox sealed a batch ending with `chunk`, which will leave the thread with it: the
   *  line still arriving may have begun in it, so its part is copied (unless the chunk lies in a
   *  shared slab, which stays as it is on both sides). */
  sealed(chunk: Buffer): void {
    const first = this.pending[0];
    if (first?.chunk !== chunk || isShared(chunk)) return;
    const copy = Buffer.allocUnsafeSlow(first.end - first.start);
    chunk.copy(copy, 0, first.start, first.end);
    this.pending[0] = { chunk: copy, start: 0, end: copy.length };
  }

  /** Whether the chunk being split is valid UTF-8 as a whole. */
  private utf8(): boolean {
    this.chunkUtf8 ??= isUtf8(this.chunk);
    return this.chunkUtf8;
  }

  /** Holds chunk[start, end) as the next piece of the line arriving. */
  private hold(chunk: Buffer, start: number, end: number): void {
    this.pending.push({ chunk, start, end });
    // (What the chunk's check found, if anything asked: the classifier checks the rest.)
    this.pendingUtf8.push(this.chunkUtf8 === true);
    this.pendingBytes += end - start;
    this.unscanned += end - start;
  }

  /** Gives the classifier the line's pieces it has not had, beginning the line at the first. */
  private catchUp(): void {
    const pieces = this.pending;
    if (this.scanned === 0) this.classifier.begin();
    for (; this.scanned < pieces.length; this.scanned++) {
      const p = pieces[this.scanned];
      this.classifier.piece(p.chunk.subarray(p.start, p.end), this.pendingUtf8[this.scanned]);
    }
    this.unscanned = 0;
  }

  private count(c: Classified): void {
    if (c.kind === 'parse-error' || c.kind === 'empty') this.parseErrors += 1;
  }

  private drop(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.pendingUtf8.length = 0;
    this.scanned = 0;
    this.unscanned = 0;
  }

  private lineEnd(chunk: Buffer, end: number, length: number, offset: number): void {
    const pieces = this.pending;
    // (Its last piece may end with the line's \r: the classifier counts `length` only.)
    if (end > 0) this.hold(chunk, 0, end);
    // Joined, a line is at most JOIN_MAX bytes (the end of a large read makes it longer).
    if (this.pendingBytes > JOIN_MAX) {
      this.catchUp();
      // The pieces are all still here (a first piece whose chunk left was copied by `sealed`):
      // the classifier may want them joined, for an exact parse error or an over-long member.
      const c = this.classifier.end(length, () => joinPieces(pieces, length));
      this.count(c);
      this.outbox.addSpanning(c, pieces, length, offset, this.chunkAt);
    } else this.joined(pieces, length, offset);
    this.drop();
  }

  /** A short line that crossed reads: joined and classified as a read's whole lines are; the
   *  joined copy travels to main in its place. It ends in \r\n: the split takes one \r off, so
   *  a line whose own last byte is \r keeps it. */
  private joined(pieces: readonly Piece[], length: number, offset: number): void {
    const line = joinPieces(pieces, length, 2);
    line[length] = 0x0d;
    line[length + 1] = 0x0a;
    const t = this.chunkAt;
    this.classifier.classifyRegion(line, 0, length + 2, NO_LIMIT, false, (start, end, c, id) => {
      if (c !== null) this.count(c);
      this.outbox.addLine(c, line, start, end, offset + start, t, id);
    });
  }

  /** The chunk's whole lines, split and classified in one call into the scanner. */
  private region(
    chunk: Buffer,
    from: number,
    to: number,
    offset: number,
    limit: number,
    tally: RegionTally,
  ): void {
    const t = this.chunkAt;
    // (A limit the module cannot take as it stands — not a whole number from 0 to 2^31 — goes
    // the JS way below, which compares exactly as the splitter does.)
    const plainLimit = Number.isInteger(limit) && limit >= 0 && limit < 2 ** 31;
    const done =
      plainLimit &&
      this.classifier.classifyRegion(
        chunk,
        from,
        to,
        limit,
        this.utf8(),
        (start, end, c, id, over) => {
          const at = offset + (start - from);
          if (over >= 0) return tally.over(at, over);
          tally.line(end - start);
          if (c !== null) this.count(c);
          this.outbox.addLine(c, chunk, start, end, at, t, id);
        },
        (rows, r0, r1) => {
          const bytes = rows.runBytes(r0, r1);
          // Counted as framed before the outbox takes them (as each line above): the framer's
          // count includes frames the overload policy then drops.
          tally.lines(r1 - r0, rows.runLargest());
          this.outbox.addResponses(chunk, rows, r0, r1, bytes, offset - from, t);
        },
      );
    if (done) return;
    // A chunk too large for one pass (never a pipe read): split here, classify line by line.
    for (let pos = from; pos < to; ) {
      const nl = chunk.indexOf(0x0a, pos);
      const end = nl > pos && chunk[nl - 1] === 0x0d ? nl - 1 : nl;
      const at = offset + (pos - from);
      if (end - pos > limit) tally.over(at, nl - pos);
      else {
        tally.line(end - pos);
        this.wholeLine(chunk, pos, end, at);
      }
      pos = nl + 1;
    }
  }

  /** One whole line, classified on its own. */
  private wholeLine(chunk: Buffer, start: number, end: number, offset: number): void {
    const c = this.classifier.classifySpan(chunk, start, end, this.utf8());
    this.count(c);
    this.outbox.addLine(c, chunk, start, end, offset, this.chunkAt);
  }
}
