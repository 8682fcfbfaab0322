/**
 * Tee: the relay's copies for one observer, bounded.
 *
 * Each chunk the relay passes on is copied into an ArrayBuffer of its own and posted (moved, not
 * copied again). What the observer has not acknowledged is counted; past the bound the relay does
 * not copy (a `gap` of so many bytes is posted instead, counted), so a stalled observer costs the
 * relay neither memory nor time. Before the observer's port exists (it is loading) messages wait
 * here, under the same bound.
 * Owns: the messages waiting for a port. Fed by: the relay. Listens: the observer's acks.
 */

export interface TeePort {
  postMessage(msg: unknown, transfer?: ArrayBuffer[]): void;
}

/** Messages held for an observer that has not attached yet, at most. */
const MAX_WAITING = 8192;

type Waiting = { msg: unknown; transfer: ArrayBuffer[] };

export class Tee {
  private port: TeePort | null = null;
  private readonly waiting: Waiting[] = [];
  /** Bytes copied and not yet acknowledged. */
  private unacked = 0;
  /** Bytes passed on without a copy since the last one sent (posted as one gap). */
  private gap = 0;
  droppedBytes = 0;
  /** Messages without bytes lost because no observer came to take them. */
  lostMessages = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly gapMessage: (bytes: number) => unknown,
  ) {}

  attach(port: TeePort): void {
    this.port = port;
    for (const w of this.waiting.splice(0)) port.postMessage(w.msg, w.transfer);
  }

  /** A copy of `chunk` in the message `make` builds around it (or a gap past the bound). */
  chunk(chunk: Uint8Array, make: (data: ArrayBuffer) => unknown): void {
    if (this.unacked + chunk.length > this.maxBytes) {
      this.gap += chunk.length;
      this.droppedBytes += chunk.length;
      return;
    }
    if (this.gap > 0) {
      this.post(this.gapMessage(this.gap));
      this.gap = 0;
    }
    const data = new ArrayBuffer(chunk.length);
    new Uint8Array(data).set(chunk);
    this.unacked += chunk.length;
    this.post(make(data), [data]);
  }

  /** A message without bytes (always sent: state, end, exit). */
  post(msg: unknown, transfer: ArrayBuffer[] = []): void {
    if (this.port) this.port.postMessage(msg, transfer);
    else if (this.waiting.length < MAX_WAITING) this.waiting.push({ msg, transfer });
    else this.lostMessages += 1;
  }

  ack(bytes: number): void {
    this.unacked = Math.max(0, this.unacked - bytes);
  }
}
