/**
 * Relay: the heart of `pipescope tap`, on the tap's main thread, with nothing else on it.
 *
 * Spawns the server as the host asked (its environment, cwd and argv unchanged, no shell) and
 * passes bytes both ways exactly: host stdin → server stdin, server stdout → host stdout, server
 * stderr → the tap's stderr. Backpressure passes through too: when the host stops taking our
 * stdout, the relay stops reading the server's (after the one chunk Node holds), so the server
 * blocks in write() as it would without the tap; when the server stops reading its stdin, the
 * relay stops reading the host's. Observers get copies through bounded tees (tee.ts) and never
 * hold a byte back. Pipescope's own lines (a cancellation) go in between two of the host's lines.
 *
 * Owns: the child process, its three pipes, the tees and the state timer. Fed by: the host's
 * stdin, the child's pipes and exit, the observers' messages. Listens: the tap's entry (main.ts)
 * through `done`, once the server exited and everything it wrote reached the host.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { ExitInfo } from '../wire/protocol.js';
import type {
  FromRelay,
  RelayHost,
  RelayStdin,
  RelayToObserver,
  ToRelay,
} from '../wire/tap-protocol.js';
import { HostEnd } from './host-end.js';
import { HostReadMeter } from './host-read-meter.js';
import { Injector } from './injector.js';
import { closeHostStdin, underDeathSignal } from './spawn-server.js';
import { relayTees, type Tee } from './tee.js';

/** Large answers the host's reading of is timed (smaller ones take no time worth showing). */
const HOST_READ_MIN_BYTES = 64 * 1024;
const STATE_EVERY_MS = 100;
/** After the server's exit, how long its pipes may stay open (held by what it left behind). */
const AFTER_EXIT_MS = 1000;

export interface RelayIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

export interface RelayEnd {
  exit: ExitInfo | null;
  spawnError: { code: string; message: string } | null;
}

export class Relay {
  readonly child: ChildProcess;
  /** The copies for the observer's threads (tee.ts relayTees). */
  readonly stdoutTee: Tee;
  readonly stderrTee: Tee;
  readonly stdinTee: Tee;
  /** The host's end (stdin EOF here, signals in main.ts), stamped on the exit. */
  readonly hostEnd = new HostEnd();
  private readonly meter: HostReadMeter;
  private readonly host: RelayHost = {
    reading: true,
    notReadingSince: null,
    notReadingMs: 0,
    pendingBytes: 0,
    deliveredBytes: 0,
    resumedAt: null,
    serverReadAt: null,
  };
  private readonly stdinState: RelayStdin = {
    bytes: 0,
    pendingBytes: 0,
    pendingSince: null,
    waitMs: 0,
    closed: false,
  };
  /** Pipescope's own lines, between two of the host's. */
  private readonly injector: Injector;
  private exit: ExitInfo | null = null;
  private spawnError: RelayEnd['spawnError'] = null;
  private stdoutEnded = false;
  private hostGone = false;
  private stderrGone = false;
  private stderrFlushed = false;
  /** Bytes handed to the host's pipe (`host.deliveredBytes`: the ones it took). */
  private writtenBytes = 0;
  private finished = false;
  private readonly timer: NodeJS.Timeout;
  readonly done: Promise<RelayEnd>;
  private resolveDone!: (end: RelayEnd) => void;

  constructor(
    command: string,
    args: string[],
    private readonly io: RelayIo,
    private readonly now: () => number,
  ) {
    ({ stdout: this.stdoutTee, stderr: this.stderrTee, stdin: this.stdinTee } = relayTees(now));
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
    this.meter = new HostReadMeter(HOST_READ_MIN_BYTES, (r) =>
      this.stdinTee.post({ type: 'host-read', ...r } satisfies RelayToObserver),
    );
    // Its own process group: a signal the host sends the tap's group reaches the server once,
    // forwarded (main.ts), not twice. On Linux, under setpriv --pdeathsig KILL (which execs
    // it: same pid): a SIGKILL the host sends the tap reaches the server too, as without it.
    const [file, argv] = underDeathSignal(command, args);
    this.child = spawn(file, argv, {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      windowsHide: true,
      shell: process.platform === 'win32',
    });
    this.injector = new Injector(
      (data, done) => this.toServer(data, done),
      () => (this.stdinState.closed || this.exit ? 'server closed stdin' : null),
      (seq, waitedMs, error) =>
        this.stdoutTee.post(
          { type: 'inject-done', seq, waitedMs, ...(error !== undefined && { error }) },
          true,
        ),
      now,
    );
    this.timer = setInterval(() => this.sendState(), STATE_EVERY_MS);
    this.timer.unref();
    this.wire();
  }

  /** `fn` once the server's first output arrived (the observer may load then). */
  onFirstOutput(fn: () => void): void {
    (this.child.stdout as Readable).once('data', () => setImmediate(fn));
  }

  /** This relay copies as it relays: nothing is ever held back. */
  outputHeld(): boolean {
    return false;
  }

  private wire(): void {
    const { child, io } = this;
    child.once('spawn', () => {
      this.stdoutTee.post({ type: 'spawned', pid: child.pid ?? -1, t: this.now() });
      this.sendState();
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (child.pid !== undefined || this.spawnError) return; // a kill() that failed
      this.spawnError = { code: e.code ?? 'ESPAWN', message: e.message };
      this.stdoutTee.post({ type: 'spawn-error', ...this.spawnError } satisfies FromRelay);
      this.stdoutEnded = true;
      this.stderrFlushed = true;
      this.finish();
    });
    child.once('exit', (code, signal) => {
      const exit: ExitInfo = { code, signal, t: this.now() };
      this.exit = exit;
      const hostEnded = this.hostEnd.before(exit);
      this.stdoutTee.post({ type: 'exit', exit, hostEnded } satisfies FromRelay);
      // A process the server left behind may hold its stdout open: the host would see the
      // exit at once without the tap, so the tap waits for the pipes' end only so long.
      const giveUp = setTimeout(() => this.abandonPipes(), AFTER_EXIT_MS);
      giveUp.unref();
      this.maybeFinish();
    });
    const out = child.stdout as Readable;
    out.on('data', (chunk: Buffer) => this.fromServer(chunk));
    out.once('end', () => {
      this.stdoutEnded = true;
      this.stdoutTee.post({ type: 'stdout-end', t: this.now() } satisfies FromRelay);
      this.maybeFinish();
    });
    out.on('error', () => {});
    io.stdout.on('drain', () => this.hostDrained());
    io.stdout.on('error', () => this.hostClosedStdout());
    const err = child.stderr as Readable;
    err.on('data', (chunk: Buffer) => {
      this.stderrTee.chunk(chunk, (data) => ({ type: 'stderr', data, t: this.now() }));
      if (this.stderrGone) return;
      if (!io.stderr.write(chunk)) {
        err.pause();
        io.stderr.once('drain', () => err.resume());
      }
    });
    err.once('end', () => {
      // Everything it wrote reaches the tap's stderr before the tap exits (a crash's trace).
      if (this.stderrGone) this.stderrFlushed = true;
      else io.stderr.write('', () => this.stderrDone());
    });
    err.on('error', () => {});
    io.stderr.on('error', () => {
      // The host closed the tap's stderr: the server's goes nowhere now, and must not block.
      this.stderrGone = true;
      this.stderrDone();
      err.resume();
    });
    const stdin = child.stdin as Writable;
    stdin.on('drain', () => {
      this.endStdinWait();
      io.stdin.resume();
    });
    stdin.on('error', () => {
      // The server closed its stdin (or exited): the host's next write fails (EPIPE), as it
      // would have without the tap.
      this.stdinState.closed = true;
      this.endStdinWait();
      closeHostStdin(io.stdin);
    });
    io.stdin.on('data', (chunk: Buffer) => this.fromHost(chunk));
    io.stdin.once('end', () => {
      this.hostEnd.ended(this.now());
      this.stdinTee.post({ type: 'stdin-end', t: this.now() } satisfies RelayToObserver);
      if (!this.stdinState.closed) stdin.end();
    });
    io.stdin.on('error', () => {});
  }

  // ---- server → host ----

  private fromServer(chunk: Buffer): void {
    const t = this.now();
    this.host.serverReadAt = t;
    this.meter.read(chunk, t);
    const make = (data: ArrayBuffer): FromRelay => ({ type: 'stdout', data, t });
    if (this.hostGone) {
      this.stdoutTee.chunk(chunk, make);
      return;
    }
    // The host's bytes first. The observer gets the chunk itself once the host's pipe took it
    // (moved, not copied: nothing holds it then), in its place in the order.
    const slot = this.stdoutTee.later();
    const length = chunk.length;
    this.writtenBytes += length;
    const ok = this.io.stdout.write(chunk, (e) => {
      if (!e) {
        this.host.deliveredBytes += length;
        this.meter.written(length, this.now());
      }
      slot.fill(chunk, make);
      if (this.exit) this.maybeFinish();
    });
    if (!ok) this.hostStopped(t);
  }

  /** The host's pipe is full: stop reading the server (it blocks, as it would without us). */
  private hostStopped(t: number): void {
    if (!this.host.reading) return;
    (this.child.stdout as Readable).pause();
    this.host.reading = false;
    this.host.notReadingSince = t;
    this.sendState();
  }

  private hostDrained(): void {
    if (this.host.reading) return;
    const t = this.now();
    if (this.host.notReadingSince !== null) this.host.notReadingMs += t - this.host.notReadingSince;
    this.host.reading = true;
    this.host.notReadingSince = null;
    this.host.resumedAt = t;
    this.sendState();
    (this.child.stdout as Readable).resume();
    this.maybeFinish();
  }

  /** The host closed its end of our stdout: close ours of the server's, so the server's next
   *  write fails (EPIPE) exactly as it would have without the tap. */
  private hostClosedStdout(): void {
    if (this.hostGone) return;
    this.hostGone = true;
    this.host.reading = true;
    this.host.notReadingSince = null;
    (this.child.stdout as Readable).destroy();
    this.stdoutEnded = true;
    this.maybeFinish();
  }

  // ---- host → server ----

  private fromHost(chunk: Buffer): void {
    const t = this.now();
    if (!this.stdinState.closed) this.injector.host(chunk);
    this.stdinTee.chunk(chunk, (data) => ({ type: 'stdin', data, t }) satisfies RelayToObserver);
  }

  private toServer(data: Uint8Array, done?: (e?: Error | null) => void): void {
    const stdin = this.child.stdin as Writable;
    const length = data.length;
    const ok = stdin.write(data, (e) => {
      if (!e) this.stdinState.bytes += length;
      done?.(e);
    });
    if (!ok && this.stdinState.pendingSince === null) {
      this.stdinState.pendingSince = this.now();
      this.io.stdin.pause();
      this.sendState();
    }
  }

  private endStdinWait(): void {
    const s = this.stdinState;
    if (s.pendingSince === null) return;
    s.waitMs += this.now() - s.pendingSince;
    s.pendingSince = null;
    this.sendState();
  }

  /** One of Pipescope's own lines (a cancellation), from the transport worker. */
  /** An acknowledgement, or one of Pipescope's own lines, from the transport worker. */
  onWorkerMessage(msg: ToRelay): void {
    if (msg.type === 'ack')
      (msg.stream === 'stderr' ? this.stderrTee : this.stdoutTee).ack(msg.bytes);
    else this.injector.line(msg.seq, msg.data);
  }

  // ---- state and the end ----

  private sendState(): void {
    const t = this.now();
    const h = this.host;
    const s = this.stdinState;
    const stdin = this.child.stdin as Writable | null;
    const host: RelayHost = {
      ...h,
      notReadingMs: h.notReadingMs + (h.notReadingSince === null ? 0 : t - h.notReadingSince),
      pendingBytes: this.io.stdout.writableLength,
    };
    const stdinState: RelayStdin = {
      ...s,
      pendingBytes: stdin?.writableLength ?? 0,
      waitMs: s.waitMs + (s.pendingSince === null ? 0 : t - s.pendingSince),
    };
    this.stdoutTee.post({ type: 'state', t, host, stdin: stdinState } satisfies FromRelay, true);
  }

  /** Done once the server exited, its stdout ended, and the host took every byte of it. */
  private maybeFinish(): void {
    if (this.finished || !this.exit || !this.stdoutEnded || !this.stderrFlushed) return;
    if (!this.hostGone && this.host.deliveredBytes < this.writtenBytes) return; // still reading
    this.finish();
  }

  private stderrDone(): void {
    this.stderrFlushed = true;
    this.maybeFinish();
  }

  /** The server exited AFTER_EXIT_MS ago and something it left still holds its pipes: stop
   *  reading them (what the host has been handed is still delivered). */
  private abandonPipes(): void {
    if (this.finished) return;
    if (!this.stdoutEnded) {
      this.stdoutEnded = true;
      (this.child.stdout as Readable).destroy();
      this.stdoutTee.post({ type: 'stdout-end', t: this.now() } satisfies FromRelay);
    }
    if (!this.stderrFlushed) {
      (this.child.stderr as Readable).destroy();
      this.stderrFlushed = true;
    }
    this.maybeFinish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    clearInterval(this.timer);
    this.sendState();
    // Lines of Pipescope's still waiting for the end of a host line that never came.
    this.injector.fail('the server is gone');
    this.stdoutTee.flush();
    this.stderrTee.flush();
    this.stdinTee.flush();
    // The host's stdin has nowhere to go now; stop reading it (so the process may exit).
    this.io.stdin.pause();
    this.resolveDone({ exit: this.exit, spawnError: this.spawnError });
  }
}
