/**
 * Transport worker: the session's hands on the server's pipes (DESIGN.md "Processes and threads").
 *
 * Owns: the child process (through ChildRunner), the stdout reader (framing, classification), the
 * outbox of frames bound for main, the stderr batcher and the stdin writer. Fed by: main's messages (credits, writes,
 * reader mode, stop) and the child's pipes. Listens: main, through `parentPort`.
 *
 * Draining here means a busy main thread (IPC, rendering, traces) never stops stdout from being
 * read; only an explicit reader mode (`paused`, `naive`) or the `pause` overload policy does.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { OverloadPolicy } from '../../shared/session-options.js';
import type {
  ExitInfo,
  FromWorker,
  ToWorker,
  WorkerCounters,
  WorkerStartConfig,
} from '../wire/protocol.js';
import { ChildRunner } from './child-runner.js';
import { Outbox } from './outbox.js';
import { openStdoutChannel, ReadBuffers } from './stdout-channel.js';
import { StdoutReader } from './stdout-reader.js';

const COUNTERS_EVERY_MS = 100;
const STDERR_FLUSH_MS = 50;
const STDERR_FLUSH_BYTES = 64 * 1024;

const port = parentPort;
if (!port) throw new Error('transport-worker must run in a worker thread');
const config = workerData as WorkerStartConfig;

/** The session clock's zero on this thread's `performance.now()` (read per pipe read: the
 *  `timeOrigin` getter is not free). */
const clockZero = config.startedAtEpochMs - performance.timeOrigin;
function now(): number {
  return performance.now() - clockZero;
}

function post(msg: FromWorker, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(msg, transfer);
}

let readerMode = config.readerMode;
let stopping = false;
let stopped = false;
let overloadPaused = false;
/** The policy the current overload episode was reported to main with (null: none yet). */
let overloadReported: OverloadPolicy | null = null;
let lastStdoutByteAt: number | null = null;
let stdoutEnded = false;
let stderrBytes = 0;
let notReadingMs = 0;
let notReadingSince: number | null = null;
// The stream flows as soon as its data listener is attached: start "reading" so that a session
// created paused records when it stopped reading (the write-blocked rule counts from there).
let reading = true;
let stdinBytes = 0;
let stdinWaitMs = 0;
let stdinPendingSince: number | null = null;
let stdinClosed = false;
let runner: ChildRunner | null = null;
/** When the outbox last posted a batch (paces scheduleFlush). */
let lastPostAt = Number.NEGATIVE_INFINITY;

const outbox = new Outbox({
  creditFrames: config.creditFrames,
  creditBytes: config.creditBytes,
  spillMaxBytes: config.spillMaxBytes,
  now,
  post: ({ metas, buffers, slabs, transfer }) => {
    lastPostAt = now();
    post({ type: 'frames', metas, buffers, ...(slabs && { slabs }) }, transfer);
  },
  onOverload: () => {
    // Once an episode (the spill full, until it drains to half) and policy: with `drop`, every
    // frame past the bound comes here, and a message each would flood main in turn. (A policy
    // changed mid-episode is reported: main must hear of a `terminate`.)
    if (overloadReported !== config.overloadPolicy) {
      const held = { frames: outbox.spillFrames, bytes: outbox.spillBytes };
      post({ type: 'overload', policy: config.overloadPolicy, t: now(), ...held });
      overloadReported = config.overloadPolicy;
    }
    // While stopping, reading goes on whatever the policy: `pause` cannot hold it back, so
    // past the bound frames are dropped (counted), or the final flush would have no bound.
    if (config.overloadPolicy === 'pause' && !stopping) {
      overloadPaused = true;
      applyReading();
      return true;
    }
    if (config.overloadPolicy === 'terminate') void stop('overload');
    return false;
  },
  onSeal: (chunk) => stdout.sealed(chunk),
});

const stdout = new StdoutReader(config.maxFrameBytes, outbox, (info) => {
  post({ type: 'oversize', ...info, t: now() });
  if (info.phase === 'start' && config.onOversize === 'terminate') void stop('oversize');
});

/** One read of stdout (a chunk of the pipe, or of the channel's socket). */
function onStdoutChunk(chunk: Buffer): void {
  lastStdoutByteAt = now();
  stdout.push(chunk, lastStdoutByteAt);
  if (readerMode === 'naive' && !stopping) applyReading();
  scheduleFlush();
}

function attach(r: ChildRunner): void {
  const child = r.child;
  let spawned = false;
  child.once('spawn', () => {
    spawned = true;
    post({ type: 'spawned', pid: child.pid ?? -1, t: now() });
    applyReading();
  });
  child.on('error', (e: NodeJS.ErrnoException) => {
    if (spawned) return; // kill() failures after spawn are reported by the stop ladder
    post({ type: 'spawn-error', code: e.code ?? 'ESPAWN', message: e.message });
    r.markSpawnFailed();
    finish(null);
  });
  // The channel's socket hands its reads to onStdoutChunk itself (`onread`): no 'data' events.
  if (!channel) r.stdout.on('data', onStdoutChunk);
  r.stdout.on('end', () => {
    stdoutEnded = true;
    const partialBytes = stdout.end();
    outbox.flush(); // the last frames before the end, as far as credits allow
    post({ type: 'stdout-end', partialBytes, t: now() });
    applyReading();
  });
  r.stdout.on('error', () => {});
  r.stderr.on('data', onStderr);
  r.stderr.on('error', () => {});
  r.stdin.on('error', () => {
    // EPIPE: the server closed its stdin (or exited). Writes now fail fast (HARDENING.md 19).
    stdinClosed = true;
    endStdinWait();
  });
  r.stdin.on('drain', endStdinWait);
}

let stderrChunks: Buffer[] = [];
let stderrPending = 0;
let stderrTimer: NodeJS.Timeout | null = null;
function flushStderr(): void {
  if (stderrTimer) clearTimeout(stderrTimer);
  stderrTimer = null;
  if (stderrPending === 0) return;
  const data = new Uint8Array(stderrPending);
  let at = 0;
  for (const c of stderrChunks) {
    data.set(c, at);
    at += c.length;
  }
  stderrChunks = [];
  stderrPending = 0;
  post({ type: 'stderr', data, t: now() }, [data.buffer]);
}
function onStderr(chunk: Buffer): void {
  stderrBytes += chunk.length;
  stderrChunks.push(chunk);
  stderrPending += chunk.length;
  if (stderrPending >= STDERR_FLUSH_BYTES) flushStderr();
  else if (!stderrTimer) stderrTimer = setTimeout(flushStderr, STDERR_FLUSH_MS);
}

function endStdinWait(): void {
  if (stdinPendingSince === null) return;
  stdinWaitMs += now() - stdinPendingSince;
  stdinPendingSince = null;
}

function write(seq: number, data: Uint8Array): void {
  const startedAt = now();
  const stdin = runner?.stdin;
  if (!stdin || stdinClosed || stdin.destroyed || !stdin.writable) {
    post({ type: 'write-done', seq, waitedMs: 0, error: 'server closed stdin' });
    return;
  }
  const ok = stdin.write(data, (e) => {
    if (e) {
      stdinClosed = true;
      post({ type: 'write-done', seq, waitedMs: now() - startedAt, error: e.message });
      return;
    }
    stdinBytes += data.length;
    post({ type: 'write-done', seq, waitedMs: now() - startedAt });
  });
  if (!ok && stdinPendingSince === null) stdinPendingSince = now();
}

function shouldRead(): boolean {
  if (stopping) return true; // keep draining during the stop ladder's grace periods
  if (readerMode === 'paused' || overloadPaused) return false;
  if (readerMode === 'naive' && outbox.busy) return false;
  return true;
}

function applyReading(): void {
  const want = shouldRead() && !stdoutEnded;
  if (want === reading) return;
  reading = want;
  const stdout = runner?.stdout;
  if (want) {
    if (notReadingSince !== null) notReadingMs += now() - notReadingSince;
    notReadingSince = null;
    stdout?.resume();
  } else {
    notReadingSince = now();
    stdout?.pause();
  }
}

/**
 * While frames keep coming, the open batch is sealed and posted at most once a POST_EVERY_MS; a
 * full batch the credits let go leaves on the next turn, as does the first frame after a quiet
 * spell. A server that writes a line per write — most SDK servers — otherwise cost a post to
 * main and a credit back per pipe read: 18,600 of each for 200,000 notifications (and, while
 * main was out of credits, a small batch sealed per read, all posted at once when credits came
 * back). Frames keep their arrival time (`t`). The naive reader waits for main after every read:
 * never held there.
 */
const POST_EVERY_MS = 1;
let flushScheduled = false;
function scheduleFlush(): void {
  // (Reads of a long line leave nothing to post until it ends.)
  if (flushScheduled || !outbox.holding) return;
  flushScheduled = true;
  const wait = lastPostAt + POST_EVERY_MS - now();
  if (wait <= 0 || outbox.readyToPost || readerMode === 'naive') setImmediate(flushNow);
  else setTimeout(flushNow, wait);
}

function flushNow(): void {
  flushScheduled = false;
  outbox.flush();
}

function counters(): WorkerCounters {
  const s = stdout.stats;
  return {
    t: now(),
    stdoutBytes: s.bytesIn,
    stderrBytes,
    lineBytes: s.lineBytes,
    frames: s.frames,
    largestFrameBytes: s.largestFrameBytes,
    parseErrors: stdout.parseErrors,
    oversizeFrames: s.oversizeFrames,
    pendingBytes: s.pendingBytes,
    partialBytesAtEof: s.partialBytesAtEof,
    lastStdoutByteAt,
    dispatcherWaitMs: outbox.currentWaitMs(),
    dispatcherLongestWaitMs: outbox.currentLongestWaitMs(),
    spillFrames: outbox.spillFrames,
    spillBytes: outbox.spillBytes,
    maxSpillFrames: outbox.maxSpillFrames,
    droppedFrames: outbox.droppedFrames,
    droppedBytes: outbox.droppedBytes,
    readingStdout: reading,
    notReadingMs: notReadingMs + (notReadingSince === null ? 0 : now() - notReadingSince),
    notReadingSince,
    stdinBytes,
    stdinWaitMs: stdinWaitMs + (stdinPendingSince === null ? 0 : now() - stdinPendingSince),
    stdinPendingBytes: runner?.stdin.writableLength ?? 0,
    stdinPendingSince,
    stdinClosed,
    stdoutEnded,
  };
}

const countersTimer = setInterval(
  () => post({ type: 'counters', counters: counters() }),
  COUNTERS_EVERY_MS,
);

function onExit(exit: ExitInfo): void {
  outbox.flush(); // frames read before the exit go before it (as far as credits allow)
  post({ type: 'exit', exit });
  post({ type: 'counters', counters: counters() });
}

async function stop(reason: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  void reason;
  overloadPaused = false;
  applyReading();
  if (!runner) return finish(null);
  await runner.stop(config.stopGraceMs);
  finish(runner.exit);
}

function finish(exit: ExitInfo | null): void {
  if (stopped) return;
  stopped = true;
  flushStderr();
  if (!stdoutEnded && runner) {
    // The ladder abandoned a stdout still held outside our group: the line in progress is
    // partial at "EOF" all the same (the byte invariant and truncated-at-exit rely on it).
    stdoutEnded = true;
    post({ type: 'stdout-end', partialBytes: stdout.end(), t: now() });
  }
  // Everything still spilled goes now, credits or not: nothing is lost silently.
  outbox.releaseAll();
  clearInterval(countersTimer);
  post({ type: 'stopped', exit, counters: counters() });
  port?.close();
}

// The server, last of all (a spawn that throws at once finishes here, and finish() needs all of
// the above). Stdout comes through the socket channel where it can be made (see
// stdout-channel.ts), else through Node's pipe. Messages from main wait meanwhile: the port's
// listener is attached below.
const readBuffers = new ReadBuffers(() => stdout.lineBytes);
const channel =
  config.stdoutChannel === 'pipe' ? null : await openStdoutChannel(readBuffers, onStdoutChunk);

try {
  runner = new ChildRunner(
    { command: config.command, args: config.args, cwd: config.cwd, env: config.env },
    now,
    onExit,
    channel,
  );
} catch (e) {
  // Synchronous spawn failures (bad arguments): report them like ENOENT, as data.
  const error = e as NodeJS.ErrnoException;
  post({ type: 'spawn-error', code: error.code ?? 'ESPAWN', message: error.message });
}
if (runner) attach(runner);
else finish(null);

port.on('message', (msg: ToWorker) => {
  switch (msg.type) {
    case 'credit':
      if (msg.spare) outbox.recycle(msg.spare);
      outbox.credit(msg.frames, msg.bytes);
      // Batches held for credits go now; the open one as scheduleFlush paces it.
      if (outbox.readyToPost) outbox.flush();
      else scheduleFlush();
      if (outbox.belowHalf) {
        // The episode is over once the spill has drained (by the flush just made, or before).
        overloadPaused = false;
        overloadReported = null;
      }
      applyReading();
      break;
    case 'write':
      write(msg.seq, msg.data);
      break;
    case 'limits':
      if (msg.maxFrameBytes !== undefined) {
        config.maxFrameBytes = msg.maxFrameBytes;
        stdout.setMaxFrameBytes(msg.maxFrameBytes);
      }
      if (msg.onOversize !== undefined) config.onOversize = msg.onOversize;
      if (msg.overloadPolicy !== undefined) {
        config.overloadPolicy = msg.overloadPolicy;
        if (msg.overloadPolicy !== 'pause' && overloadPaused) {
          overloadPaused = false;
          applyReading();
        }
      }
      break;
    case 'reader-mode':
      readerMode = msg.mode;
      applyReading();
      break;
    case 'stop':
      void stop(msg.reason);
      break;
  }
});
