/**
 * Host lines: the host's bytes to the server's stdin, cut into lines by byte 0x0A (one trailing
 * `\r` stripped), for the observer. A line longer than `maxBytes` is not kept: its bytes are
 * counted and it is reported once, by length, at its newline. Never on the relay's path.
 * Owns: the pieces of the line in progress (≤ maxBytes). Fed by: the relay's copies. Listens:
 * the observer, through `onLine` / `onOversize`.
 */
export class HostLines {
  private pieces: Buffer[] = [];
  private pending = 0;
  private oversize = 0;
  /** A gap in the copies: the line in progress is unknowable; skip to the next newline. */
  private skipping = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (body: Buffer, t: number) => void,
    private readonly onOversize: (bytes: number, t: number) => void,
  ) {}

  push(chunk: Buffer, t: number): void {
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(0x0a, from);
      const end = nl === -1 ? chunk.length : nl;
      this.add(chunk.subarray(from, end));
      if (nl === -1) return;
      this.lineEnd(t);
      from = nl + 1;
    }
  }

  /** Bytes the relay passed on without a copy. */
  gap(bytes: number): void {
    this.pieces = [];
    this.pending = 0;
    this.oversize += bytes;
    this.skipping = true;
  }

  private add(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.skipping || this.pending + piece.length > this.maxBytes) {
      this.oversize += this.pending + piece.length;
      this.pieces = [];
      this.pending = 0;
      if (!this.skipping) this.skipping = true;
      return;
    }
    this.pieces.push(piece);
    this.pending += piece.length;
  }

  private lineEnd(t: number): void {
    if (this.skipping) {
      this.onOversize(this.oversize, t);
      this.skipping = false;
      this.oversize = 0;
      return;
    }
    let body = this.pieces.length === 1 ? (this.pieces[0] as Buffer) : Buffer.concat(this.pieces);
    if (body.length > 0 && body[body.length - 1] === 0x0d) body = body.subarray(0, -1);
    this.pieces = [];
    this.pending = 0;
    this.onLine(body, t);
  }
}
