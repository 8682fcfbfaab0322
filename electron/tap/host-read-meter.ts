/**
 * Host read meter: how long the host takes to read each large answer the tap relays.
 *
 * The relay hands every stdout chunk to `read` as it reads it from the server and to `written`
 * once the host's pipe took it (the write's callback). Lines are found by byte 0x0A with
 * `indexOf` (memchr: the relay's cost stays a scan, never a parse). For a line of at least
 * `minBytes`, the time from its first byte read to its last byte taken by the host is reported.
 * Owns: a bounded list of lines read but not yet taken. Pure apart from the clock it is given.
 */

export interface HostRead {
  /** Stream offset of the line's first byte (the frame offset the framer gives it too). */
  offset: number;
  bytes: number;
  firstByteAt: number;
  deliveredAt: number;
}

/** Lines waiting for the host, at most (each ≥ minBytes: 64 of them is ≥ 4 MiB in the pipe). */
const MAX_WAITING = 64;

export class HostReadMeter {
  private readOffset = 0;
  private deliveredOffset = 0;
  /** Start of the line being read and when its first byte came (null: at a line boundary). */
  private lineStart = 0;
  private lineFirstAt: number | null = null;
  /** Bytes were skipped (never seen): the line they were in is not known until its newline. */
  private lost = false;
  private readonly waiting: { offset: number; end: number; firstByteAt: number }[] = [];

  constructor(
    private readonly minBytes: number,
    private readonly report: (r: HostRead) => void,
  ) {}

  /** A chunk read from the server at `t`. */
  read(chunk: Uint8Array, t: number): void {
    const base = this.readOffset;
    let from = 0;
    while (from < chunk.length) {
      if (this.lineFirstAt === null) {
        this.lineStart = base + from;
        this.lineFirstAt = t;
      }
      const nl = chunk.indexOf(0x0a, from);
      if (nl === -1) break;
      const end = base + nl + 1;
      if (!this.lost && end - this.lineStart >= this.minBytes && this.waiting.length < MAX_WAITING)
        this.waiting.push({ offset: this.lineStart, end, firstByteAt: this.lineFirstAt });
      this.lost = false;
      this.lineFirstAt = null;
      from = nl + 1;
    }
    this.readOffset = base + chunk.length;
  }

  /** `bytes` of the stream that were relayed but never seen here (the native relay's gap): the
   *  line they fall in is not timed. */
  skip(bytes: number): void {
    if (bytes <= 0) return;
    this.readOffset += bytes;
    this.lost = true;
    this.lineFirstAt = null;
  }

  /** `bytes` more were taken by the host's pipe at `t` (in order). */
  written(bytes: number, t: number): void {
    this.deliveredOffset += bytes;
    while (this.waiting.length > 0 && this.waiting[0].end <= this.deliveredOffset) {
      const w = this.waiting.shift() as { offset: number; end: number; firstByteAt: number };
      this.report({
        offset: w.offset,
        bytes: w.end - w.offset,
        firstByteAt: w.firstByteAt,
        deliveredAt: t,
      });
    }
  }
}
