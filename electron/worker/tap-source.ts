/**
 * Tap source: what a transport worker observes in place of a child of its own, when the server
 * is a host's, relayed by `pipescope tap` (electron/tap/relay.ts). The relay owns the process and
 * both pipes; this reads the copies it posts (wire/tap-protocol.ts), acknowledges them, and
 * carries the session's few writes of its own (cancellations) back to it.
 *
 * Owns: nothing but its listener on the port. Fed by: the relay's messages. Listens: the worker,
 * through `TapSourceEvents`. It stands in for the StdinWriter too (the counters read the same
 * fields), since the host's writes to stdin are the relay's.
 */
import type { MessagePort } from 'node:worker_threads';
import type { ExitInfo } from '../wire/protocol.js';
import {
  type FromRelay,
  type RelayHost,
  type RelayStdin,
  type TeeBatch,
  type ToRelay,
  unbatch,
} from '../wire/tap-protocol.js';

export interface TapSourceEvents {
  spawned(pid: number, t: number): void;
  spawnError(code: string, message: string): void;
  /** A chunk as the relay read it at `t` (the relay's clock is the session's). */
  stdout(chunk: Buffer, t: number): void;
  stderr(chunk: Buffer): void;
  /** Bytes the relay passed on without a copy: the framer must not join across them. */
  gap(bytes: number): void;
  stdoutEnd(): void;
  /** `hostEnded`: the host had closed stdin or signalled the server by then (the relay says). */
  exit(exit: ExitInfo, hostEnded: boolean): void;
  writeDone(seq: number, waitedMs: number, error?: string): void;
}

export class TapSource {
  host: RelayHost = {
    reading: true,
    notReadingSince: null,
    notReadingMs: 0,
    pendingBytes: 0,
    deliveredBytes: 0,
    resumedAt: null,
    serverReadAt: null,
  };
  private stdinState: RelayStdin = {
    bytes: 0,
    pendingBytes: 0,
    pendingSince: null,
    waitMs: 0,
    closed: false,
  };
  /** The time of the relay's latest state (null: none yet). */
  stateTime: number | null = null;
  exit: ExitInfo | null = null;
  private exitWaiters: (() => void)[] = [];
  /** Bytes of stdout and of stderr taken in the batch being read, acknowledged at its end. */
  private readonly acked = [0, 0];

  constructor(
    private readonly port: MessagePort,
    private readonly now: () => number,
    private readonly on: TapSourceEvents,
  ) {
    port.on('message', (msg: FromRelay | TeeBatch) => {
      for (const m of unbatch<FromRelay>(msg)) this.onMessage(m);
      // One acknowledgement per batch and stream, not one per message.
      if (this.acked[0] > 0) this.send({ type: 'ack', bytes: this.acked[0] });
      if (this.acked[1] > 0) this.send({ type: 'ack', bytes: this.acked[1], stream: 'stderr' });
      this.acked[0] = this.acked[1] = 0;
    });
  }

  private onMessage(msg: FromRelay): void {
    switch (msg.type) {
      case 'spawned':
        this.on.spawned(msg.pid, msg.t);
        break;
      case 'spawn-error':
        this.on.spawnError(msg.code, msg.message);
        break;
      case 'stdout':
        this.on.stdout(Buffer.from(msg.data), msg.t);
        this.acked[0] += msg.data.byteLength;
        break;
      case 'stderr':
        this.on.stderr(Buffer.from(msg.data));
        this.acked[1] += msg.data.byteLength;
        break;
      case 'stderr-gap':
        this.on.stderr(
          Buffer.from(
            `[pipescope] ${msg.bytes} bytes of stderr not observed (the tap's observer was behind; the host got them)\n`,
          ),
        );
        break;
      case 'gap':
        this.on.gap(msg.bytes);
        break;
      case 'stdout-end':
        this.on.stdoutEnd();
        break;
      case 'exit':
        this.exit = msg.exit;
        this.on.exit(msg.exit, msg.hostEnded);
        for (const w of this.exitWaiters.splice(0)) w();
        break;
      case 'state':
        this.host = msg.host;
        this.stdinState = msg.stdin;
        this.stateTime = msg.t;
        break;
      case 'inject-done':
        this.on.writeDone(msg.seq, msg.waitedMs, msg.error);
        break;
    }
  }

  private send(msg: ToRelay, transfer: ArrayBuffer[] = []): void {
    this.port.postMessage(msg, transfer);
  }

  /** Resolves once the relay has seen the server exit (a tap never stops the host's server). */
  exited(): Promise<void> {
    if (this.exit) return Promise.resolve();
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  close(): void {
    this.port.close();
  }

  // ---- the StdinWriter's face (transport-worker.ts reads these into its counters) ----

  get bytes(): number {
    return this.stdinState.bytes;
  }

  get closed(): boolean {
    return this.stdinState.closed;
  }

  get pendingSince(): number | null {
    return this.stdinState.pendingSince;
  }

  pendingBytes(): number {
    return this.stdinState.pendingBytes;
  }

  waitMs(): number {
    const s = this.stdinState;
    return s.waitMs + (s.pendingSince === null ? 0 : this.sinceState());
  }

  /** ms since the relay's latest state (what its running totals have not counted yet). */
  private sinceState(): number {
    return this.stateTime === null ? 0 : Math.max(0, this.now() - this.stateTime);
  }

  write(seq: number, data: Uint8Array): void {
    this.send({ type: 'inject', seq, data });
  }

  /** Whether the relay reads the server's stdout, and since when not (the host's doing). */
  notReading(): { since: number | null; ms: number } {
    const h = this.host;
    const extra = h.notReadingSince === null ? 0 : this.sinceState();
    return { since: h.notReadingSince, ms: h.notReadingMs + extra };
  }
}
