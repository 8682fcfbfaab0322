/**
 * NativeRelay: the tap's relay on Linux when `pipescope-relay` was built (native/relay.c). The
 * server is spawned here, as by the Node relay (relay.ts); its three pipes and the host's stdio
 * are then handed to the native relay, which moves the bytes (splice/tee: the host reads a large
 * answer about as fast as without the tap) and tells this side what it moved: records on a
 * control socket, copies on two more. This side turns them into the very messages the Node relay
 * gives its observers (FromRelay, RelayToObserver): the observer cannot tell the two apart.
 *
 * Once the native relay has the host's stdin and stdout, this process lets go of its own (fds 0
 * and 1 become /dev/null): nothing it says can reach the host's stdout, and the host's EOF and
 * EPIPE happen exactly when the native relay's do.
 *
 * Owns: the server, the native relay process, its three sockets, the reassemblers. Fed by: the
 * native relay's records and copies, the server's exit, the observers' messages. Listens: the
 * tap's entry (main.ts) through `done`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { RELAY_BINARY, relayBinaryUnavailable } from '../native-binary.js';
import type { ExitInfo } from '../wire/protocol.js';
import type { FromRelay, RelayToObserver, ToRelay } from '../wire/tap-protocol.js';
import { HostEnd } from './host-end.js';
import { HostReadMeter } from './host-read-meter.js';
import {
  abandonCommand,
  injectCommand,
  type NativeRecord,
  type Piece,
  Reassembler,
  RecordReader,
  stateMessage,
  yieldCommand,
} from './native-records.js';
import type { RelayEnd } from './relay.js';
import { hostStdoutIsSocket, SERVER_SNDBUF, underDeathSignal } from './spawn-server.js';
import { relayTees, type Tee } from './tee.js';

const BINARY = RELAY_BINARY;
const HOST_READ_MIN_BYTES = 64 * 1024;
/** relay.h's CMD_MAX: a command's payload (a line of Pipescope's and its 8-byte sequence number)
 *  past it is refused. No cancellation comes near it. */
const INJECT_MAX = 1024 * 1024;
/** What may still come on a copies socket once it is paused (a read or two in flight). */
const COPIES_SLACK = 4 * 1024 * 1024;
/** After the server's exit, how long its pipes may stay open (held by what it left behind). */
const AFTER_EXIT_MS = 1000;

/** Why the native relay cannot be used here (null: it can). `PIPESCOPE_TAP_RELAY=node` asks for
 *  the Node relay. Once chosen there is no way back (the host's fds are handed over): a binary
 *  that cannot start here (native-binary.ts) is not chosen. */
export function nativeRelayUnavailable(
  env: NodeJS.ProcessEnv = process.env,
  binary = BINARY,
): string | null {
  if (env.PIPESCOPE_TAP_RELAY === 'node') return 'PIPESCOPE_TAP_RELAY=node';
  return relayBinaryUnavailable(binary);
}

export class NativeRelay {
  readonly child: ChildProcess;
  /** The copies for the observer's threads (tee.ts relayTees). */
  readonly stdoutTee: Tee;
  readonly stderrTee: Tee;
  readonly stdinTee: Tee;
  /** The host's end (stdin EOF here, signals in main.ts), stamped on the exit. */
  readonly hostEnd = new HostEnd();
  readonly done: Promise<RelayEnd>;
  private resolveDone!: (end: RelayEnd) => void;
  private native: ChildProcess | null = null;
  /** The server's stdout socket's size for the relay (SERVER_SNDBUF; null: the default). */
  private serverSndbuf: number | null = null;
  private ctrl: Writable | null = null;
  private readonly records = new RecordReader();
  private readonly meter: HostReadMeter;
  private readonly out: [Reassembler, Reassembler];
  /** Streams whose end went to the observer (after the last of their copies). */
  private readonly ended = [false, false];
  /** When the native relay said each stream ended (null: not yet). */
  private readonly endsSaid: (number | null)[] = [null, null];
  /** The native relay's sockets still open (control, stdout's and stderr's copies): its last
   *  records and copies are in only once all three ended. */
  private socketsOpen = 3;
  private exit: ExitInfo | null = null;
  private spawnError: RelayEnd['spawnError'] = null;
  private nativeDone = false;
  /** Whether the native relay was told the server is gone (abandonCommand). */
  private abandonSent = false;
  private failed = false;
  private exitPosted = false;
  private finished = false;
  private firstOutput: (() => void) | null = null;
  /** A mark of the server's stdout came; a piece of it (its copies, or a gap) not yet. */
  private held = false;
  private pieced = false;
  /** process.hrtime.bigint() (the native relay's clock) at `now()`'s `base`. */
  private readonly hr0 = process.hrtime.bigint();
  private readonly base: number;

  constructor(
    command: string,
    args: string[],
    private readonly now: () => number,
    /** This process's fds 0 and 1 are the host's (the real tap): let go of them once handed. */
    private readonly ownStdio = true,
    /** This process's threads but its main one give way to the host's path: one CPU, nice 5
     *  (yield.c). */
    private readonly yieldToHost = ownStdio,
  ) {
    this.base = now();
    ({ stdout: this.stdoutTee, stderr: this.stderrTee, stdin: this.stdinTee } = relayTees(now));
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
    this.meter = new HostReadMeter(HOST_READ_MIN_BYTES, (r) =>
      this.stdinTee.post({ type: 'host-read', ...r } satisfies RelayToObserver),
    );
    this.out = [
      new Reassembler((p) => this.stdoutPiece(p)),
      new Reassembler((p) => this.stderrPiece(p)),
    ];
    const sndbuf = hostStdoutIsSocket() ? SERVER_SNDBUF : undefined; // the host gave a socket
    const [file, argv] = underDeathSignal(command, args, sndbuf);
    this.serverSndbuf = file === BINARY ? (sndbuf ?? null) : null;
    this.child = spawn(file, argv, {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    this.wireServer();
    // Same tick as the spawn: nothing has been read from the server's pipes yet.
    if (this.child.pid !== undefined) this.startNative();
  }

  /** `fn` once the copies of the server's first output are here (the observer may load then).
   *  The native relay holds copies while the host's path moves, so a large first answer has
   *  reached the host by then: the observer's loading does not compete with it. */
  onFirstOutput(fn: () => void): void {
    this.firstOutput = fn;
  }

  /** Whether the server has written and the copies are still held by the native relay. */
  outputHeld(): boolean {
    return this.held && !this.pieced;
  }

  private at(ns: bigint): number {
    return this.base + Number(ns - this.hr0) / 1e6;
  }

  private wireServer(): void {
    const { child } = this;
    child.once('spawn', () => {
      this.stdoutTee.post({ type: 'spawned', pid: child.pid ?? -1, t: this.now() });
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (child.pid !== undefined || this.spawnError) return; // a kill() that failed
      this.spawnError = { code: e.code ?? 'ESPAWN', message: e.message };
      this.stdoutTee.post({ type: 'spawn-error', ...this.spawnError } satisfies FromRelay);
      this.nativeDone = true;
      this.finish();
    });
    child.once('exit', (code, signal) => {
      this.exit = { code, signal, t: this.now() };
      this.postExit();
      // What the server left behind may hold its pipes: the host would see the exit at once
      // without the tap, so the native relay gets so long to see their end.
      const giveUp = setTimeout(() => this.abandon(), AFTER_EXIT_MS);
      giveUp.unref();
      this.abandonIfOutputEnded();
      this.maybeFinish();
    });
  }

  private startNative(): void {
    const { child } = this;
    const server = [child.stdin, child.stdout, child.stderr] as (Writable | Readable)[];
    const args = this.yieldToHost ? ['--yield-to-host', String(process.pid)] : [];
    if (this.serverSndbuf !== null) args.push('--server-sndbuf', String(this.serverSndbuf));
    const native = spawn(BINARY, args, {
      stdio: [0, 1, 2, ...server, 'pipe', 'pipe', 'pipe'],
    });
    this.native = native;
    // The native relay holds them now: ours would keep the server's stdin open past the host's
    // EOF, and must never be read.
    for (const s of server) s.destroy();
    if (this.ownStdio) {
      closeSync(0);
      openSync('/dev/null', 'r');
      closeSync(1);
      openSync('/dev/null', 'w');
    }
    // Node types stdio as a tuple of five; fds 6-8 are the 'pipe' entries asked for above.
    const stdio = native.stdio as unknown as (Readable & Writable)[];
    const ctrl = stdio[6] as Readable & Writable;
    this.ctrl = ctrl;
    ctrl.on('data', (chunk: Buffer) => {
      try {
        for (const r of this.records.push(chunk)) this.onRecord(r);
      } catch (e) {
        this.nativeFailed((e as Error).message);
      }
    });
    const closed = (): void => {
      this.socketsOpen -= 1;
      if (this.socketsOpen === 0) this.socketsEnded();
    };
    ctrl.once('close', closed);
    ctrl.on('error', () => {});
    for (const dir of [0, 1] as const) {
      const copies = stdio[7 + dir] as Readable;
      const out = this.out[dir] as Reassembler;
      // Past the tee's bound (an observer loading or behind) the copies wait, bounded, in the
      // native relay's ring (past it, uncopied there), not lost here.
      const tee = dir === 0 ? this.stdoutTee : this.stderrTee;
      const over = (slack: number): boolean => tee.wouldOverflow(out.waitingBytes + slack);
      copies.on('data', (chunk: Buffer) => {
        out.bytes(chunk);
        if (over(COPIES_SLACK)) copies.pause();
      });
      tee.onAck = () => {
        if (copies.isPaused() && !over(2 * COPIES_SLACK)) copies.resume();
      };
      copies.once('close', closed);
      copies.on('error', () => {});
    }
    native.on('error', (e) => this.nativeFailed(e.message));
    native.once('exit', (code, signal) => {
      if (code !== 0) this.nativeFailed(`it exited (${signal ?? code})`);
    });
  }

  /** The native relay is gone and everything it sent is in: streams it did not end, end now
   *  (copies that never came are a gap). */
  private socketsEnded(): void {
    for (const dir of [0, 1] as const) {
      (this.out[dir] as Reassembler).abandon();
      this.endsSaid[dir] ??= this.now();
      this.maybeEnd(dir);
    }
    this.nativeDone = true;
    this.maybeFinish();
  }

  /** The tap started its observer's thread: it gives way to the host's path like the others
   *  (yield.c; nothing when this relay was not asked to). */
  observerStarted(): void {
    if (this.yieldToHost && this.ctrl && !this.nativeDone) this.ctrl.write(yieldCommand());
  }

  /** Tells the native relay the server is gone (once): it reads what the server's pipes hold
   *  now, delivers it, and ends, whatever still holds the server's stdin. */
  private abandon(): void {
    if (this.abandonSent || this.nativeDone || !this.ctrl) return;
    this.abandonSent = true;
    this.ctrl.write(abandonCommand());
  }

  /** The server exited and its stdout and stderr have ended: nothing is left to wait for (a
   *  process it left that holds only its stdin must not delay the exit the host sees by
   *  AFTER_EXIT_MS; the JavaScript relay ends then too). */
  private abandonIfOutputEnded(): void {
    if (this.exit && this.endsSaid[0] !== null && this.endsSaid[1] !== null) this.abandon();
  }

  /** The native relay failed: the host's pipes went with it. Say so; the server has no one to
   *  talk to any more. */
  private nativeFailed(why: string): void {
    if (this.failed) return;
    this.failed = true;
    process.stderr.write(`pipescope tap: the native relay failed: ${why}\n`);
    this.native?.kill('SIGKILL');
    if (!this.exit) this.child.kill('SIGTERM');
  }

  private onRecord(r: NativeRecord): void {
    switch (r.type) {
      case 'mark':
        if (r.dir === 0) this.held = true;
        (this.out[r.dir] as Reassembler).mark(r);
        return;
      case 'eof':
        this.endsSaid[r.dir] = this.at(r.t);
        this.maybeEnd(r.dir);
        this.abandonIfOutputEnded();
        return;
      case 'state':
        this.stdoutTee.post(
          stateMessage(r, (ns) => this.at(ns)),
          true,
        );
        return;
      case 'stdin':
        this.stdinTee.chunk(r.data, (data) => ({ type: 'stdin', data, t: this.at(r.t) }));
        return;
      case 'stdin-gap':
        this.stdinTee.post({ type: 'stdin-gap', bytes: r.bytes, t: this.at(r.t) });
        return;
      case 'stdin-eof':
        this.hostEnd.ended(this.at(r.t));
        this.stdinTee.post({ type: 'stdin-end', t: this.at(r.t) } satisfies RelayToObserver);
        return;
      case 'inject-done':
        this.stdoutTee.post(
          {
            type: 'inject-done',
            seq: r.seq,
            waitedMs: Number(r.waitedNs) / 1e6,
            ...(r.error !== null && { error: r.error }),
          } satisfies FromRelay,
          true,
        );
        return;
      default:
        // ready, host-gone, done: the marks, the state and the sockets' end say what follows
        return;
    }
  }

  private stdoutPiece(p: Piece): void {
    const { mark } = p;
    this.pieced = true;
    if (this.firstOutput) {
      const fn = this.firstOutput;
      this.firstOutput = null;
      setImmediate(fn);
    }
    const t = this.at(mark.readAt);
    if (p.kind === 'gap') {
      this.meter.skip(mark.bytes);
      this.stdoutTee.post({ type: 'gap', bytes: mark.bytes, t } satisfies FromRelay);
    } else {
      this.meter.read(p.data, t);
      this.stdoutTee.chunk(p.data, (data) => ({ type: 'stdout', data, t }) satisfies FromRelay);
    }
    if (mark.delivered) this.meter.written(mark.bytes, this.at(mark.writtenAt));
    this.maybeEnd(0);
  }

  private stderrPiece(p: Piece): void {
    const t = this.at(p.mark.readAt);
    if (p.kind === 'gap') this.stderrTee.post({ type: 'stderr-gap', bytes: p.mark.bytes, t });
    else this.stderrTee.chunk(p.data, (data) => ({ type: 'stderr', data, t }));
    this.maybeEnd(1);
  }

  /** A stream's end goes to the observer after the last of its copies. */
  private maybeEnd(dir: 0 | 1): void {
    const said = this.endsSaid[dir];
    if (this.ended[dir] || said === null || !(this.out[dir] as Reassembler).idle) return;
    this.ended[dir] = true;
    if (dir === 0) {
      this.stdoutTee.post({ type: 'stdout-end', t: said } satisfies FromRelay);
      this.postExit();
    }
    this.maybeFinish();
  }

  /** The server's exit goes to the observer after its output's end and last copy (the order a
   *  relay that copies as it goes gives by itself): the observer's stop waits for the exit, and
   *  copies the native relay still hands over after it would be cut. Its time is the real one. */
  private postExit(now = false): void {
    const exit = this.exit;
    if (this.exitPosted || !exit || !(now || this.ended[0])) return;
    this.exitPosted = true;
    this.stdoutTee.post({ type: 'exit', exit, hostEnded: this.hostEnd.before(exit) });
  }

  onWorkerMessage(msg: ToRelay): void {
    if (msg.type === 'ack')
      (msg.stream === 'stderr' ? this.stderrTee : this.stdoutTee).ack(msg.bytes);
    // relay.c refuses a line past its CMD_MAX too: no need to send it the bytes.
    else if (msg.data.length + 8 > INJECT_MAX)
      this.refuse(msg.seq, 'a line over 1 MiB: not written');
    else if (this.ctrl && !this.nativeDone) this.ctrl.write(injectCommand(msg.seq, msg.data));
    else this.refuse(msg.seq, 'the server is gone');
  }

  /** One of Pipescope's lines that will not be written: said done, with why. */
  private refuse(seq: number, error: string): void {
    this.stdoutTee.post({ type: 'inject-done', seq, waitedMs: 0, error }, true);
  }

  /** Done once the server exited and the native relay delivered everything it read (it ends
   *  then, and its sockets with it). */
  private maybeFinish(): void {
    if (this.finished || !this.exit || !this.nativeDone) return;
    this.finish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.postExit(true);
    this.stdoutTee.flush();
    this.stderrTee.flush();
    this.stdinTee.flush();
    this.ctrl?.destroy();
    this.resolveDone({ exit: this.exit, spawnError: this.spawnError });
  }
}
