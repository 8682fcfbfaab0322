/**
 * Transport worker: the session's hands on the server's pipes (DESIGN.md "Processes and threads").
 *
 * Owns: the child process (through ChildRunner), the stdout reader (framing, classification), the
 * outbox of frames bound for main, the stderr batcher, the stdin writer, its timers and its
 * listeners (one DisposableStore, released when it finishes). Fed by: main's messages (credits,
 * writes, reader mode, limits, stop) and the child's pipes. Listens: main, through the port.
 * The thread's entry (entry.ts) makes one and starts it.
 *
 * Draining here means a busy main thread (IPC, rendering, traces) never stops stdout from being
 * read; only an explicit reader mode (`paused`, `naive`) or the `pause` overload policy does.
 */
import type { MessagePort } from 'node:worker_threads';
import { DisposableStore, listen, toDisposable } from '../../shared/lifecycle.js';
import type { OverloadPolicy, ReaderMode } from '../../shared/session-options.js';
import type {
  ExitInfo,
  FromWorker,
  ToWorker,
  WorkerCounters,
  WorkerStartConfig,
} from '../wire/protocol.js';
import { ChildRunner } from './child-runner.js';
import { FlushPacer } from './flush-pacer.js';
import { Outbox } from './outbox.js';
import { openReadChannel, ReadBuffers, type ReadChannel, ScratchBuffer } from './read-channel.js';
import { ReadSwitch } from './read-switch.js';
import { StderrBatcher } from './stderr-batcher.js';
import { StderrPace } from './stderr-pace.js';
import { StdinWriter } from './stdin-writer.js';
import { StdoutReader } from './stdout-reader.js';
import { TapSource } from './tap-source.js';

const COUNTERS_EVERY_MS = 100;

export class TransportWorker {
  private readonly store = new DisposableStore();
  private readonly outbox: Outbox;
  private readonly stdout: StdoutReader;
  private readonly stderr: StderrBatcher;
  /** stderr read slowly on purpose (`check`), or as fast as it comes (default). */
  private readonly stderrPace = this.store.add(new StderrPace(() => this.runner?.stderr));
  private readonly stdin: StdinWriter | TapSource;
  /** Tap mode: the relay's copies stand in for a child of our own (tap-source.ts). */
  private readonly tap: TapSource | null;
  private gapBytes = 0;
  /** The session clock's zero on this thread's `performance.now()` (read per pipe read: the
   *  `timeOrigin` getter is not free). */
  private readonly clockZero: number;
  private runner: ChildRunner | null = null;
  private channels: { stdout: ReadChannel | null; stderr: ReadChannel | null } = {
    stdout: null,
    stderr: null,
  };
  private readerMode: ReaderMode;
  private stopping = false;
  private stopped = false;
  private overloadPaused = false;
  /** The policy the current overload episode was reported to main with (null: none yet). */
  private overloadReported: OverloadPolicy | null = null;
  private lastStdoutByteAt: number | null = null;
  private stdoutEnded = false;
  private readonly readSwitch: ReadSwitch;
  private readonly pacer: FlushPacer;

  /** Makes the worker and starts the server; main's messages are taken once it runs. */
  static async start(port: MessagePort, config: WorkerStartConfig): Promise<TransportWorker> {
    const worker = new TransportWorker(port, config);
    await worker.spawn();
    return worker;
  }

  private constructor(
    private readonly port: MessagePort,
    private readonly config: WorkerStartConfig,
  ) {
    this.clockZero = config.startedAtEpochMs - performance.timeOrigin;
    this.readSwitch = new ReadSwitch(this.now);
    this.readerMode = config.readerMode;
    this.outbox = new Outbox({
      creditFrames: config.creditFrames,
      creditBytes: config.creditBytes,
      spillMaxBytes: config.spillMaxBytes,
      now: this.now,
      post: ({ metas, buffers, slabs, transfer }) => {
        this.pacer.posted();
        this.post({ type: 'frames', metas, buffers, ...(slabs && { slabs }) }, transfer);
      },
      onOverload: () => this.onOverload(),
      onSeal: (chunk) => this.stdout.sealed(chunk),
    });
    this.pacer = new FlushPacer(this.now, this.outbox, () => this.readerMode === 'naive');
    this.stdout = new StdoutReader(config.maxFrameBytes, this.outbox, (info) => {
      this.post({ type: 'oversize', ...info, t: this.now() });
      if (info.phase === 'start' && this.config.onOversize === 'terminate') void this.stop();
    });
    this.stderr = this.store.add(
      new StderrBatcher(
        (data) => this.post({ type: 'stderr', data, t: this.now() }, [data.buffer as ArrayBuffer]),
        this.now,
      ),
    );
    const writeDone = (seq: number, waitedMs: number, error?: string) =>
      this.post({ type: 'write-done', seq, waitedMs, ...(error !== undefined && { error }) });
    this.tap = config.tap ? this.tapSource(config.tap, writeDone) : null;
    this.stdin = this.tap ?? new StdinWriter(this.now, writeDone);
    const countersTimer = setInterval(
      () => this.post({ type: 'counters', counters: this.counters() }),
      COUNTERS_EVERY_MS,
    );
    this.store.add(toDisposable(() => clearInterval(countersTimer)));
  }

  private readonly now = (): number => performance.now() - this.clockZero;

  private post(msg: FromWorker, transfer: ArrayBuffer[] = []): void {
    this.port.postMessage(msg, transfer);
  }

  /**
   * The server, last of all (a spawn that throws at once finishes here, and finish() needs all
   * of the above). Stdout and stderr come through socket channels where they can be made (see
   * read-channel.ts), else through Node's pipes. Messages from main wait meanwhile: the port's
   * listener is attached at the end.
   */
  private async spawn(): Promise<void> {
    const c = this.config;
    if (this.tap) {
      this.store.add(listen(this.port, 'message', (msg: ToWorker) => this.onMessage(msg)));
      return;
    }
    const pipes = c.readChannels === 'pipe';
    const [stdout, stderr] = await Promise.all([
      pipes
        ? null
        : openReadChannel(
            'stdout',
            new ReadBuffers(() => this.stdout.lineBytes),
            this.onStdoutChunk,
          ),
      pipes ? null : openReadChannel('stderr', new ScratchBuffer(), this.onStderrChunk),
    ]);
    this.channels = { stdout, stderr };
    try {
      this.runner = new ChildRunner(
        { command: c.command, args: c.args, cwd: c.cwd, env: c.env },
        this.now,
        (exit) => this.onExit(exit),
        this.channels,
      );
    } catch (e) {
      // Synchronous spawn failures (bad arguments): report them like ENOENT, as data.
      const error = e as NodeJS.ErrnoException;
      this.post({ type: 'spawn-error', code: error.code ?? 'ESPAWN', message: error.message });
    }
    if (this.runner) this.attach(this.runner);
    else this.finish(null);
    this.store.add(listen(this.port, 'message', (msg: ToWorker) => this.onMessage(msg)));
  }

  /** One read of stderr (a view the next read reuses, with a channel: the batcher copies it). */
  private readonly onStderrChunk = (chunk: Buffer): void => {
    this.stderr.push(chunk);
    if (!this.stopping) this.stderrPace.took(chunk.length);
  };

  /** One read of stdout (a chunk of the pipe, or of the channel's socket). */
  private readonly onStdoutChunk = (chunk: Buffer, readAt?: number): void => {
    const at = readAt ?? this.now();
    this.lastStdoutByteAt = at;
    this.stdout.push(chunk, at);
    if (this.readerMode === 'naive' && !this.stopping) this.applyReading();
    this.pacer.schedule();
  };

  /** Tap mode: the relay's events, as a child's and its pipes' would come. */
  private tapSource(
    port: MessagePort,
    writeDone: (seq: number, waitedMs: number, error?: string) => void,
  ): TapSource {
    return new TapSource(port, this.now, {
      spawned: (pid, t) => this.post({ type: 'spawned', pid, t }),
      spawnError: (code, message) => {
        this.post({ type: 'spawn-error', code, message });
        this.finish(null);
      },
      stdout: this.onStdoutChunk,
      stderr: this.onStderrChunk,
      gap: (bytes) => {
        this.gapBytes += bytes;
        this.stdout.gap(bytes);
        this.post({ type: 'observe-gap', bytes, t: this.now() });
      },
      stdoutEnd: () => this.onStdoutEnd(),
      exit: (exit, hostEnded) => this.onExit(exit, hostEnded),
      writeDone,
    });
  }

  private onStdoutEnd(): void {
    this.stdoutEnded = true;
    const partialBytes = this.stdout.end();
    this.outbox.flush(); // the last frames before the end, as far as credits allow
    this.post({ type: 'stdout-end', partialBytes, t: this.now() });
    this.applyReading();
  }

  private attach(r: ChildRunner): void {
    const child = r.child;
    let spawned = false;
    child.once('spawn', () => {
      spawned = true;
      this.post({ type: 'spawned', pid: child.pid ?? -1, t: this.now() });
      this.applyReading();
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (spawned) return; // kill() failures after spawn are reported by the stop ladder
      this.post({ type: 'spawn-error', code: e.code ?? 'ESPAWN', message: e.message });
      r.markSpawnFailed();
      this.finish(null);
    });
    // A channel's socket hands its reads over itself (`onread`): no 'data' events.
    if (!this.channels.stdout) r.stdout.on('data', this.onStdoutChunk);
    r.stdout.on('end', () => this.onStdoutEnd());
    r.stdout.on('error', () => {});
    if (!this.channels.stderr) r.stderr.on('data', this.onStderrChunk);
    r.stderr.on('error', () => {});
    if (this.stdin instanceof StdinWriter) this.stdin.attach(r.stdin);
  }

  private onOverload(): boolean {
    const policy = this.config.overloadPolicy;
    // Once an episode (the spill full, until it drains to half) and policy: with `drop`, every
    // frame past the bound comes here, and a message each would flood main in turn. (A policy
    // changed mid-episode is reported: main must hear of a `terminate`.)
    if (this.overloadReported !== policy) {
      const held = { frames: this.outbox.spillFrames, bytes: this.outbox.spillBytes };
      this.post({ type: 'overload', policy, t: this.now(), ...held });
      this.overloadReported = policy;
    }
    // While stopping, reading goes on whatever the policy: `pause` cannot hold it back, so
    // past the bound frames are dropped (counted), or the final flush would have no bound.
    if (policy === 'pause' && !this.stopping) {
      this.overloadPaused = true;
      this.applyReading();
      return true;
    }
    if (policy === 'terminate') void this.stop();
    return false;
  }

  private shouldRead(): boolean {
    if (this.stopping) return true; // keep draining during the stop ladder's grace periods
    if (this.readerMode === 'paused' || this.overloadPaused) return false;
    if (this.readerMode === 'naive' && this.outbox.busy) return false;
    return true;
  }

  private applyReading(): void {
    if (this.tap) return; // the relay reads as the host drains: the tap never pauses it
    this.readSwitch.set(this.shouldRead() && !this.stdoutEnded, this.runner?.stdout);
  }

  private counters(): WorkerCounters {
    const s = this.stdout.stats;
    const now = this.now();
    // In tap mode "not reading" is the relay's: it stops when the host stops draining.
    const notReading = this.tap?.notReading() ?? this.readSwitch.notReading(now);
    return {
      t: now,
      stdoutBytes: s.bytesIn,
      stderrBytes: this.stderr.bytes,
      stderrDroppedBytes: this.stderr.droppedBytes,
      lineBytes: s.lineBytes,
      frames: s.frames,
      largestFrameBytes: s.largestFrameBytes,
      parseErrors: this.stdout.parseErrors,
      oversizeFrames: s.oversizeFrames,
      pendingBytes: s.pendingBytes,
      partialBytesAtEof: s.partialBytesAtEof,
      lastStdoutByteAt: this.lastStdoutByteAt,
      dispatcherWaitMs: this.outbox.currentWaitMs(),
      dispatcherLongestWaitMs: this.outbox.currentLongestWaitMs(),
      spillFrames: this.outbox.spillFrames,
      spillBytes: this.outbox.spillBytes,
      maxSpillFrames: this.outbox.maxSpillFrames,
      droppedFrames: this.outbox.droppedFrames,
      droppedBytes: this.outbox.droppedBytes + this.gapBytes,
      readingStdout: this.tap ? this.tap.host.reading : this.readSwitch.reading,
      notReadingMs: notReading.ms,
      notReadingSince: notReading.since,
      stdinBytes: this.stdin.bytes,
      stdinWaitMs: this.stdin.waitMs(),
      stdinPendingBytes: this.stdin.pendingBytes(),
      stdinPendingSince: this.stdin.pendingSince,
      stdinClosed: this.stdin.closed,
      stdoutEnded: this.stdoutEnded,
      ...(this.tap && {
        hostPendingBytes: this.tap.host.pendingBytes,
        hostResumedAt: this.tap.host.resumedAt,
        serverReadAt: this.tap.host.serverReadAt,
        relayStateAt: this.tap.stateTime,
      }),
    };
  }

  private onExit(exit: ExitInfo, hostEnded?: boolean): void {
    this.outbox.flush(); // frames read before the exit go before it (as far as credits allow)
    this.post({ type: 'exit', exit, ...(hostEnded !== undefined && { hostEnded }) });
    this.post({ type: 'counters', counters: this.counters() });
  }

  private onMessage(msg: ToWorker): void {
    switch (msg.type) {
      case 'credit':
        if (msg.spare) this.outbox.recycle(msg.spare);
        this.outbox.credit(msg.frames, msg.bytes);
        // Batches held for credits go now; the open one as the pacer paces it.
        if (this.outbox.readyToPost) this.outbox.flush();
        else this.pacer.schedule();
        if (this.outbox.belowHalf) {
          // The episode is over once the spill has drained (by the flush just made, or before).
          this.overloadPaused = false;
          this.overloadReported = null;
        }
        this.applyReading();
        break;
      case 'stderr-credit':
        this.stderr.credit();
        break;
      case 'write':
        this.stdin.write(msg.seq, msg.data);
        break;
      case 'limits':
        this.setLimits(msg);
        break;
      case 'reader-mode':
        this.readerMode = msg.mode;
        this.applyReading();
        break;
      case 'stderr-pace':
        this.stderrPace.set(msg.bytesPerSecond);
        break;
      case 'stop':
        void this.stop();
        break;
    }
  }

  private setLimits(msg: Extract<ToWorker, { type: 'limits' }>): void {
    const c = this.config;
    if (msg.maxFrameBytes !== undefined) {
      c.maxFrameBytes = msg.maxFrameBytes;
      this.stdout.setMaxFrameBytes(msg.maxFrameBytes);
    }
    if (msg.onOversize !== undefined) c.onOversize = msg.onOversize;
    if (msg.overloadPolicy !== undefined) {
      c.overloadPolicy = msg.overloadPolicy;
      if (msg.overloadPolicy !== 'pause' && this.overloadPaused) {
        this.overloadPaused = false;
        this.applyReading();
      }
    }
  }

  private async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.overloadPaused = false;
    this.stderrPace.set(null); // the grace periods drain stderr too
    this.applyReading();
    // A tap never stops the host's server: the session ends when the server does.
    if (this.tap) return this.tap.exited().then(() => this.finish(this.tap?.exit ?? null));
    if (!this.runner) return this.finish(null);
    await this.runner.stop(this.config.stopGraceMs);
    this.finish(this.runner.exit);
  }

  private finish(exit: ExitInfo | null): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stderr.flushFinal();
    if (!this.stdoutEnded && this.runner) {
      // The ladder abandoned a stdout still held outside our group: the line in progress is
      // partial at "EOF" all the same (the byte invariant and truncated-at-exit rely on it).
      this.stdoutEnded = true;
      this.post({ type: 'stdout-end', partialBytes: this.stdout.end(), t: this.now() });
    }
    // Everything still spilled goes now, credits or not: nothing is lost silently.
    this.outbox.releaseAll();
    this.store.dispose();
    this.post({ type: 'stopped', exit, counters: this.counters(), left: this.runner?.left ?? [] });
    this.tap?.close();
    this.port.close();
  }
}
