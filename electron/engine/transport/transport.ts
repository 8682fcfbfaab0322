/**
 * Transport: main's handle on one transport worker (and through it, one server process).
 *
 * Owns: the Worker thread. Fed by: the worker's messages. Listens: the Session (or a benchmark)
 * through typed events. Frames arrive in batches with their bytes in the worker's buffers; the
 * listener must return credits (`credit`) as it consumes them, or the worker stops posting.
 * If the worker dies, the server's process group is killed so nothing is left behind.
 */
import { EventEmitter } from 'node:events';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SessionConfig } from '../../../shared/session-config.js';
import { DEFAULT_STOP_GRACE_MS } from '../../../shared/session-options.js';
import { builtPaths } from '../../paths.js';
import type { MetaBuffers } from '../../wire/columns.js';
import type {
  ExitInfo,
  FromWorker,
  LeftProcess,
  ToWorker,
  WorkerCounters,
  WorkerStartConfig,
} from '../../wire/protocol.js';
import { SlabCache } from '../../wire/slabs.js';
import { buildChildEnv } from './child-env.js';
import { ChunkReader } from './frame-bytes.js';
import { decodeFrames, type InFrame } from './in-frame.js';

/** A frame as main receives it: metadata, and its bytes (`data`, cut when asked). */
export type Frame = InFrame;

export type TransportConfig = Pick<
  SessionConfig,
  | 'command'
  | 'args'
  | 'cwd'
  | 'env'
  | 'maxFrameBytes'
  | 'onOversize'
  | 'overloadPolicy'
  | 'spillMaxBytes'
  | 'readerMode'
> & {
  stopGraceMs?: WorkerStartConfig['stopGraceMs'];
  creditFrames?: number;
  creditBytes?: number;
  /** Epoch ms the session's clock counts from (defaults to now). */
  startedAtEpochMs?: number;
  /** How stdout and stderr are read (default: the socket channels where they work). */
  readChannels?: WorkerStartConfig['readChannels'];
  /** Tap mode: observe a relayed server through this port instead of spawning one. */
  tap?: WorkerStartConfig['tap'];
};

export interface TransportEvents {
  spawned: [pid: number, t: number];
  'spawn-error': [error: { code: string; message: string }];
  frames: [frames: Frame[]];
  oversize: [info: Extract<FromWorker, { type: 'oversize' }>];
  stderr: [data: Buffer, t: number];
  counters: [counters: WorkerCounters];
  overload: [info: Extract<FromWorker, { type: 'overload' }>];
  'stdout-end': [partialBytes: number, t: number];
  'observe-gap': [bytes: number, t: number];
  /** `hostEnded` (tapped): the host ended the server, the relay says; else false. */
  exit: [exit: ExitInfo, hostEnded: boolean];
  stopped: [result: StopResult];
  fatal: [message: string];
}

export interface StopResult {
  exit: ExitInfo | null;
  counters: WorkerCounters | null;
  /** Processes of the server still alive after the stop ladder. */
  left: LeftProcess[];
}

export interface WriteResult {
  waitedMs: number;
  error?: string;
}

const DEFAULT_CREDIT_FRAMES = 8192;
const DEFAULT_CREDIT_BYTES = 32 * 1024 * 1024;
const WORKER_HEAP_MB = 1024;
/** Decoded batches' metadata buffers held for the next credit (the worker keeps as many). */
const SPENT_METAS = 4;

function workerUrl(): URL {
  return pathToFileURL(builtPaths.workerEntry());
}

export class Transport extends EventEmitter<TransportEvents> {
  readonly startedAtEpochMs: number;
  private readonly worker: Worker;
  private writeSeq = 0;
  private readonly writes = new Map<number, (r: WriteResult) => void>();
  private readonly spentMetas: MetaBuffers[] = [];
  /** One object per shared slab the worker reads into (see slabs.ts). */
  private readonly slabs = new SlabCache();
  private stopResult: StopResult | null = null;
  private readonly stopWaiters: ((r: StopResult) => void)[] = [];
  private pid: number | null = null;
  private exitSeen = false;
  private stdoutEnded = false;
  /** Tap mode: the server is a host's (never signalled from here). */
  private readonly tapped: boolean;
  lastCounters: WorkerCounters | null = null;

  static start(config: TransportConfig): Transport {
    return new Transport(config);
  }

  private constructor(config: TransportConfig) {
    super();
    this.startedAtEpochMs = config.startedAtEpochMs ?? performance.timeOrigin + performance.now();
    const start: WorkerStartConfig = {
      command: config.command,
      args: config.args,
      cwd: config.cwd,
      env: buildChildEnv(config.env),
      maxFrameBytes: config.maxFrameBytes,
      onOversize: config.onOversize,
      overloadPolicy: config.overloadPolicy,
      spillMaxBytes: config.spillMaxBytes,
      readerMode: config.readerMode,
      creditFrames: config.creditFrames ?? DEFAULT_CREDIT_FRAMES,
      creditBytes: config.creditBytes ?? DEFAULT_CREDIT_BYTES,
      stopGraceMs: config.stopGraceMs ?? { ...DEFAULT_STOP_GRACE_MS },
      startedAtEpochMs: this.startedAtEpochMs,
      readChannels: config.readChannels,
      ...(config.tap && { tap: config.tap }),
    };
    this.tapped = config.tap !== undefined;
    this.worker = new Worker(workerUrl(), {
      workerData: start,
      transferList: config.tap ? [config.tap] : [],
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      stdout: false,
      stderr: false,
    });
    this.worker.on('message', (msg: FromWorker) => this.onMessage(msg));
    this.worker.on('error', (e) => this.onWorkerGone(`transport worker failed: ${e.message}`));
    // A batch that cannot be deserialized would be lost with its credits: treat it as fatal.
    this.worker.on('messageerror', (e) =>
      this.onWorkerGone(`transport worker message could not be decoded: ${e.message}`),
    );
    this.worker.on('exit', (code) => {
      if (!this.stopResult) this.onWorkerGone(`transport worker exited (code ${code})`);
    });
  }

  now(): number {
    return performance.timeOrigin + performance.now() - this.startedAtEpochMs;
  }

  get stopped(): boolean {
    return this.stopResult !== null;
  }

  credit(frames: number, bytes: number): void {
    // The metadata of batches decoded since goes back with it, for the worker to reuse.
    const spare = this.spentMetas.splice(0);
    const transfer: ArrayBuffer[] = [];
    for (const m of spare) transfer.push(m.num, m.kinds);
    this.send({ type: 'credit', frames, bytes, spare }, transfer);
  }

  /** Writes one message line (the caller adds the newline). Resolves when the OS took it. */
  write(data: Uint8Array): Promise<WriteResult> {
    if (this.stopResult) return Promise.resolve({ waitedMs: 0, error: 'session stopped' });
    const seq = ++this.writeSeq;
    return new Promise((resolve) => {
      this.writes.set(seq, resolve);
      this.send({ type: 'write', seq, data });
    });
  }

  setLimits(limits: Omit<Extract<ToWorker, { type: 'limits' }>, 'type'>): void {
    this.send({ type: 'limits', ...limits });
  }

  setReaderMode(mode: SessionConfig['readerMode']): void {
    this.send({ type: 'reader-mode', mode });
  }

  /** Reads the server's stderr at most this fast (null: as fast as it comes). */
  setStderrPace(bytesPerSecond: number | null): void {
    this.send({ type: 'stderr-pace', bytesPerSecond });
  }

  /** Runs the stop ladder in the worker; resolves once the worker has released everything. */
  stop(reason = 'stop'): Promise<StopResult> {
    if (this.stopResult) return Promise.resolve(this.stopResult);
    return new Promise((resolve) => {
      this.stopWaiters.push(resolve);
      this.send({ type: 'stop', reason });
    });
  }

  private send(msg: ToWorker, transfer: ArrayBuffer[] = []): void {
    if (this.stopResult) return;
    this.worker.postMessage(msg, transfer);
  }

  private onMessage(msg: FromWorker): void {
    switch (msg.type) {
      case 'frames': {
        const buffers = msg.slabs ? this.slabs.canonical(msg.buffers, msg.slabs) : msg.buffers;
        const frames: Frame[] = decodeFrames(msg.metas, new ChunkReader(buffers));
        // Decoded into the frames: the columns' buffers are free (handed back with credits).
        if (this.spentMetas.length < SPENT_METAS) {
          const { num, kinds } = msg.metas;
          this.spentMetas.push({
            num: num.buffer as ArrayBuffer,
            kinds: kinds.buffer as ArrayBuffer,
          });
        }
        this.emit('frames', frames);
        break;
      }
      case 'spawned':
        this.pid = msg.pid;
        this.emit('spawned', msg.pid, msg.t);
        break;
      case 'spawn-error':
        this.emit('spawn-error', { code: msg.code, message: msg.message });
        break;
      case 'oversize':
        this.emit('oversize', msg);
        break;
      case 'stderr':
        this.emit(
          'stderr',
          Buffer.from(msg.data.buffer, msg.data.byteOffset, msg.data.length),
          msg.t,
        );
        // Taken: the worker may post the next (stderr has credits of its own, like frames).
        this.send({ type: 'stderr-credit' });
        break;
      case 'counters':
        this.lastCounters = msg.counters;
        this.emit('counters', msg.counters);
        break;
      case 'overload':
        this.emit('overload', msg);
        break;
      case 'stdout-end':
        this.stdoutEnded = true;
        this.emit('stdout-end', msg.partialBytes, msg.t);
        break;
      case 'observe-gap':
        this.emit('observe-gap', msg.bytes, msg.t);
        break;
      case 'exit':
        this.exitSeen = true;
        this.emit('exit', msg.exit, msg.hostEnded === true);
        break;
      case 'write-done': {
        const resolve = this.writes.get(msg.seq);
        this.writes.delete(msg.seq);
        resolve?.({ waitedMs: msg.waitedMs, error: msg.error });
        break;
      }
      case 'stopped':
        this.lastCounters = msg.counters;
        this.finish({ exit: msg.exit, counters: msg.counters, left: msg.left });
        void this.worker.terminate();
        break;
      case 'fatal':
        this.emit('fatal', msg.message);
        break;
    }
  }

  private onWorkerGone(message: string): void {
    if (this.stopResult) return;
    // Without its worker nobody drains the server: kill its group (HARDENING.md 9).
    // As in the stop ladder: after the exit was seen, only a group still holding stdout is
    // signalled (no signal to a pid that may have been reused).
    const groupMayLive = !this.tapped && (!this.exitSeen || !this.stdoutEnded);
    if (this.pid !== null && this.pid > 0 && groupMayLive && process.platform !== 'win32') {
      try {
        process.kill(-this.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    this.emit('fatal', message);
    this.finish({ exit: null, counters: this.lastCounters, left: [] });
  }

  private finish(result: StopResult): void {
    if (this.stopResult) return;
    this.stopResult = result;
    for (const [, resolve] of this.writes) resolve({ waitedMs: 0, error: 'session stopped' });
    this.writes.clear();
    this.emit('stopped', result);
    for (const w of this.stopWaiters.splice(0)) w(result);
  }
}
