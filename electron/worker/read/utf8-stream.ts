/**
 * UTF-8 validity of a line that arrives in pieces (a character may be cut between two chunks).
 *
 * Owns: up to 3 bytes of a character begun at the end of the last piece. Each piece is checked
 * with node:buffer isUtf8 (SIMD) up to its last complete character; the cut
 * character is completed from the next piece and checked on its own.
 */
import { isUtf8 } from 'node:buffer';

/** Bytes a sequence starting with this lead byte claims (invalid leads claim what isUtf8 will
 *  reject anyway). */
function claimed(lead: number): number {
  return lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
}

export class Utf8Stream {
  private readonly carry = new Uint8Array(4);
  private carryLen = 0;
  private bad = false;

  reset(): void {
    this.carryLen = 0;
    this.bad = false;
  }

  /** Whether everything so far is valid (a character still cut at the end is not judged yet). */
  get ok(): boolean {
    return !this.bad;
  }

  push(piece: Uint8Array): boolean {
    if (this.bad) return false;
    let start = 0;
    if (this.carryLen > 0) {
      const want = claimed(this.carry[0]);
      const take = Math.min(want - this.carryLen, piece.length);
      this.carry.set(piece.subarray(0, take), this.carryLen);
      this.carryLen += take;
      start = take;
      if (this.carryLen < want) return true;
      if (!isUtf8(this.carry.subarray(0, this.carryLen))) return this.fail();
      this.carryLen = 0;
    }
    const n = piece.length;
    let cut = n;
    for (let k = 1; k <= 3 && n - k >= start; k++) {
      const b = piece[n - k];
      if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
      if (b >= 0xc0 && claimed(b) > k) cut = n - k;
      break;
    }
    if (cut > start && !isUtf8(piece.subarray(start, cut))) return this.fail();
    if (cut < n) {
      this.carry.set(piece.subarray(cut), 0);
      this.carryLen = n - cut;
    }
    return true;
  }

  /** A non-empty piece already known to be valid UTF-8 on its own (cut at line ends out of a chunk that
   *  is valid as a whole): valid unless a character was left cut before it. */
  pushValid(): boolean {
    if (this.bad) return false;
    if (this.carryLen > 0) return this.fail();
    return true;
  }

  /** The line ended: valid only if no character was left cut. */
  end(): boolean {
    if (this.carryLen > 0) this.bad = true;
    return !this.bad;
  }

  private fail(): false {
    this.bad = true;
    return false;
  }
}
