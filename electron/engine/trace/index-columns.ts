/**
 * The trace reader's index: per line its file offset, length, type code (with flags), `t` and
 * the byte size of a frame or stderr chunk, as growable typed columns (25 bytes a line,
 * whatever the line's size). Written by TraceReader's scan, read by its accessors.
 */

/** Growable typed columns: 25 bytes a line, whatever the line's size. */
export class Columns {
  offset = new Float64Array(1024);
  t = new Float64Array(1024);
  length = new Uint32Array(1024);
  bytes = new Uint32Array(1024);
  type = new Uint8Array(1024);
  count = 0;

  push(offset: number, length: number, type: number, t: number, bytes: number): void {
    if (this.count === this.offset.length) this.grow();
    const i = this.count++;
    this.offset[i] = offset;
    this.length[i] = Math.min(length, 0xffffffff);
    this.type[i] = type;
    this.t[i] = t;
    this.bytes[i] = Math.min(bytes, 0xffffffff);
  }

  private grow(): void {
    const n = this.offset.length * 2;
    const g = <T extends Float64Array | Uint32Array | Uint8Array>(
      a: T,
      make: (n: number) => T,
    ): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.offset = g(this.offset, (k) => new Float64Array(k));
    this.t = g(this.t, (k) => new Float64Array(k));
    this.length = g(this.length, (k) => new Uint32Array(k));
    this.bytes = g(this.bytes, (k) => new Uint32Array(k));
    this.type = g(this.type, (k) => new Uint8Array(k));
  }
}
