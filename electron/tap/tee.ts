/**
 * Tee: the relay's copies for one observer, bounded and batched.
 *
 * Each chunk the relay passed on is copied into an ArrayBuffer of its own; messages are posted
 * in batches (`{ type: 'batch', messages }`, every buffer moved, not copied again): at most one
 * post per BATCH_MS, or at once past BATCH_BYTES, so a burst of small messages costs the relay
 * one post and the observer one wake-up, not one each (a message keeps its own time `t`). What
 * the observer has not acknowledged is counted; past the bound the relay does not copy (a `gap`
 * of so many bytes is posted instead, counted), so a stalled observer costs the relay neither
 * memory nor time. Before the observer's port exists (it is loading) batches wait here, under
 * the same bound.
 * Owns: the open batch, its timer, the batches waiting for a port. Fed by: the relay. Listens:
 * the observer's acks.
 */

import { type FromRelay, TAP_OBSERVE_MAX_BYTES, type TeeBatch } from '../wire/tap-protocol.js';

export interface TeePort {
  postMessage(msg: unknown, transfer?: ArrayBuffer[]): void;
}

/** Messages held for an observer that has not attached yet, at most. */
const MAX_WAITING = 8192;
const BATCH_MS = 2;

/** A message in the open batch; a slot is a chunk the relay will hand over later (`later`). */
type Item =
  | { msg: unknown; data?: ArrayBuffer; urgent: boolean }
  | { slot: true; msg?: unknown; data?: ArrayBuffer; gap?: unknown; filled: boolean };

/** A chunk promised in order: `fill` it once the chunk may be moved (its write is done). */
export interface TeeSlot {
  fill(chunk: Uint8Array, make: (data: ArrayBuffer) => unknown): void;
}
const BATCH_BYTES = 1024 * 1024;

export class Tee {
  private port: TeePort | null = null;
  private readonly waiting: TeeBatch[] = [];
  private waitingMessages = 0;
  private open: Item[] = [];
  private openBytes = 0;
  private timer: NodeJS.Timeout | null = null;
  /** Bytes copied and not yet acknowledged. */
  private unacked = 0;
  /** Bytes passed on without a copy since the last one sent (posted as one gap). */
  private gap = 0;
  droppedBytes = 0;
  /** Messages without bytes lost because no observer came to take them. */
  lostMessages = 0;
  /** Called after each acknowledgement (a relay that stopped reading may read on). */
  onAck: (() => void) | null = null;

  constructor(
    private readonly maxBytes: number,
    private readonly gapMessage: (bytes: number) => unknown,
  ) {}

  attach(port: TeePort): void {
    this.port = port;
    for (const b of this.waiting.splice(0)) port.postMessage(b, transferOf(b));
    this.waitingMessages = 0;
  }

  /** A copy of `chunk` in the message `make` builds around it (or a gap past the bound). */
  chunk(chunk: Uint8Array, make: (data: ArrayBuffer) => unknown): void {
    const data = this.take(chunk, false);
    if (data === null) return;
    const gap = this.gapItem();
    if (gap) this.open.push(gap);
    this.openBytes += data.byteLength;
    this.add({ msg: make(data), data, urgent: false });
  }

  /**
   * A place in the order for a chunk the relay is still writing: what is posted after it waits
   * for it (but `urgent` messages). Filled, the chunk's own buffer is moved when it is exactly
   * the chunk (Node reads each chunk into a buffer of its own): no copy at all.
   */
  later(): TeeSlot {
    const item: Extract<Item, { slot: true }> = { slot: true, filled: false };
    this.open.push(item);
    return {
      fill: (chunk, make) => {
        const data = this.take(chunk, true);
        if (data !== null) {
          item.gap = this.gapItem()?.msg;
          item.msg = make(data);
          item.data = data;
          this.openBytes += data.byteLength;
        }
        item.filled = true;
        this.schedule();
      },
    };
  }

  /** The bytes to post (moved or copied), or null past the bound (counted as a gap). */
  private take(chunk: Uint8Array, mayMove: boolean): ArrayBuffer | null {
    if (this.unacked + chunk.length > this.maxBytes) {
      this.gap += chunk.length;
      this.droppedBytes += chunk.length;
      return null;
    }
    this.unacked += chunk.length;
    const own = chunk.buffer;
    if (
      mayMove &&
      own instanceof ArrayBuffer &&
      chunk.byteOffset === 0 &&
      own.byteLength === chunk.length
    )
      return own;
    const data = new ArrayBuffer(chunk.length);
    new Uint8Array(data).set(chunk);
    return data;
  }

  private gapItem(): { msg: unknown; urgent: boolean } | null {
    if (this.gap === 0) return null;
    const msg = this.gapMessage(this.gap);
    this.gap = 0;
    return { msg, urgent: false };
  }

  /** A message without bytes (end, exit) in order with the chunks; `urgent` (state) does not
   *  wait for a chunk still being written. */
  post(msg: unknown, urgent = false): void {
    // A gap not yet said goes before what follows it (an end, an exit).
    const gap = urgent ? null : this.gapItem();
    if (gap) this.open.push(gap);
    this.add({ msg, urgent });
  }

  /** Everything ready goes now (all of it, once the relay is finishing). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.open.length === 0) return;
    const messages: unknown[] = [];
    const transfer: ArrayBuffer[] = [];
    const kept: Item[] = [];
    let blocked = false;
    for (const item of this.open) {
      if ('slot' in item) {
        if (!item.filled) blocked = true;
        if (blocked) {
          kept.push(item);
          continue;
        }
        if (item.gap !== undefined) messages.push(item.gap);
      } else if (blocked && !item.urgent) {
        kept.push(item);
        continue;
      }
      if (item.msg !== undefined) messages.push(item.msg);
      if (item.data) transfer.push(item.data);
    }
    this.open = kept;
    this.openBytes = 0;
    if (messages.length === 0) return;
    const batch: TeeBatch = { type: 'batch', messages };
    if (this.port) this.port.postMessage(batch, transfer);
    else if (this.waitingMessages + messages.length <= MAX_WAITING) {
      this.waiting.push(batch);
      this.waitingMessages += messages.length;
    } else this.lose(batch, transfer);
  }

  /** No room to wait for the port: the bytes become a gap (the observer resyncs at the next
   *  newline), the rest is counted. */
  private lose(batch: TeeBatch, transfer: ArrayBuffer[]): void {
    let bytes = 0;
    for (const data of transfer) bytes += data.byteLength;
    this.unacked = Math.max(0, this.unacked - bytes);
    this.gap += bytes;
    this.droppedBytes += bytes;
    this.lostMessages += batch.messages.length - transfer.length;
  }

  ack(bytes: number): void {
    this.unacked = Math.max(0, this.unacked - bytes);
    this.onAck?.();
  }

  /** Whether `bytes` more would pass the bound: a relay that can wait (the native one: its
   *  copies wait in its ring) stops reading instead of turning them into a gap. */
  wouldOverflow(bytes: number): boolean {
    return this.unacked + bytes > this.maxBytes;
  }

  private add(item: Item): void {
    this.open.push(item);
    this.schedule();
  }

  private schedule(): void {
    if (this.openBytes >= BATCH_BYTES) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), BATCH_MS);
      this.timer.unref();
    }
  }
}

function transferOf(b: TeeBatch): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const m of b.messages) {
    const data = (m as { data?: unknown }).data;
    if (data instanceof ArrayBuffer) out.push(data);
  }
  return out;
}

/** A relay's three tees (relay.ts, native-relay.ts), each saying a gap in its own words at the
 *  relay's time: stdout's copies for the transport worker that frames them; stderr's to the same
 *  worker under a bound of their own (a gap there is logs missing, never a cut in stdout's
 *  framing); the host's lines for the observer thread. */
export function relayTees(now: () => number): { stdout: Tee; stderr: Tee; stdin: Tee } {
  return {
    stdout: new Tee(
      TAP_OBSERVE_MAX_BYTES,
      (bytes): FromRelay => ({ type: 'gap', bytes, t: now() }),
    ),
    stderr: new Tee(
      TAP_OBSERVE_MAX_BYTES,
      (bytes): FromRelay => ({ type: 'stderr-gap', bytes, t: now() }),
    ),
    stdin: new Tee(TAP_OBSERVE_MAX_BYTES, (bytes) => ({ type: 'stdin-gap', bytes, t: now() })),
  };
}
