/**
 * Flush pacer: when the transport worker posts the outbox's open batch to main.
 *
 * While frames keep coming, the open batch is sealed and posted at most once a POST_EVERY_MS; a
 * full batch the credits let go leaves on the next turn, as does the first frame after a quiet
 * spell. A server that writes a line per write — most SDK servers — otherwise cost a post to
 * main and a credit back per pipe read (and, while main was out of credits, a small batch sealed
 * per read, all posted at once when credits came back). Frames keep their arrival time (`t`).
 * The naive reader waits for main after every read: never held there.
 * Owns: one pending timer or immediate at most. Fed by: the worker (reads, credits, posts).
 */
import type { Outbox } from './outbox.js';

const POST_EVERY_MS = 1;

export class FlushPacer {
  /** When the outbox last posted a batch. */
  private lastPostAt = Number.NEGATIVE_INFINITY;
  private scheduled = false;

  constructor(
    private readonly now: () => number,
    private readonly outbox: Outbox,
    private readonly naive: () => boolean,
  ) {}

  posted(): void {
    this.lastPostAt = this.now();
  }

  schedule(): void {
    // (Reads of a long line leave nothing to post until it ends.)
    if (this.scheduled || !this.outbox.holding) return;
    this.scheduled = true;
    const wait = this.lastPostAt + POST_EVERY_MS - this.now();
    if (wait <= 0 || this.outbox.readyToPost || this.naive()) setImmediate(this.flushNow);
    else setTimeout(this.flushNow, wait);
  }

  private readonly flushNow = (): void => {
    this.scheduled = false;
    this.outbox.flush();
  };
}
