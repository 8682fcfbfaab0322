/**
 * The tap's observer thread: everything `pipescope tap` does besides relaying, off the relay's
 * thread so that none of it can delay a byte (DESIGN.md "Tap, attach and check").
 *
 * It runs one Session of the same engine in tap mode: stdout is framed by a transport worker
 * that reads the relay's copies (worker/tap-source.ts), the host's lines come here (host-lines.ts
 * → the session's HostTraffic), the process sampler watches the server. It keeps the flight
 * recorder, records `--trace`, and publishes the session to a running Pipescope (publish.ts).
 *
 * Owns: the session, its recorders and the publisher; released on `finish` from the relay,
 * after which it says `finished` and ends. Fed by: the relay's messages (parentPort).
 */
import { MessageChannel, type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { defaultTraceDir, recordingPath } from '../engine/host/recording.js';
import { Session } from '../engine/session/session.js';
import { FlightRecorder } from '../engine/trace/flight-recorder.js';
import { TraceRecorder } from '../engine/trace/recorder.js';
import {
  type ObserverToRelay,
  type RelayToObserver,
  type TeeBatch,
  unbatch,
} from '../wire/tap-protocol.js';
import { HostLines } from './host-lines.js';
import type { ObserverConfig } from './observer-config.js';
import { Publisher } from './publish.js';

const TAP_MAX_FRAME_BYTES = 128 * 1024 * 1024;
/** Frames kept for the app's viewer: a tap runs as long as the host does, so less than a
 *  session of the app's own (the flight recorder keeps its own 64 MiB). */
const FRAME_STORE_BYTES = 32 * 1024 * 1024;
/** A host line longer than this is counted, not kept (the host's requests are small). */
const HOST_LINE_MAX_BYTES = 16 * 1024 * 1024;

const port = parentPort;
if (!port) throw new Error('the tap observer must run in a worker thread');
const cfg = workerData as ObserverConfig;

function tell(msg: ObserverToRelay, transfer: MessagePort[] = []): void {
  port?.postMessage(msg, transfer);
}

const say = (text: string): void => tell({ type: 'say', text });

const channel = new MessageChannel();
tell({ type: 'stdout-port', port: channel.port1 }, [channel.port1]);

const session = new Session(
  {
    command: cfg.command,
    args: cfg.args,
    cwd: cfg.cwd,
    env: {},
    // The host's transport limits are the host's: observe what it lets through (DESIGN.md's
    // 128 MiB default), and never end its session over one.
    maxFrameBytes: TAP_MAX_FRAME_BYTES,
    onOversize: 'discard',
    // The host keeps its own timeouts; Pipescope sends none of its own.
    requestTimeoutMs: 0,
  },
  {
    tap: channel.port2,
    startedAtEpochMs: cfg.startedAtEpochMs,
    frameStoreBytes: FRAME_STORE_BYTES,
  },
);

const traceDir = defaultTraceDir();
const flight = new FlightRecorder(session, {
  dir: traceDir,
  name: cfg.name,
  onDump: (r) =>
    say(
      r.path
        ? `flight recorder written to ${r.path} (${r.reason.split(':')[0]})`
        : `flight recorder could not be written: ${r.error}`,
    ),
});
const tracePath = cfg.tracePath ? recordingPath(cfg.tracePath, traceDir) : null;
const trace = tracePath
  ? TraceRecorder.start(session, {
      path: tracePath,
      redact: cfg.redact,
      onError: (message) => say(message),
    })
  : null;
// A relative --trace lands in the traces folder (a host starts its servers in a folder of its
// own choosing): say where.
if (trace && trace.error === null) say(`recording the session to ${tracePath}`);
const publisher = cfg.publish ? new Publisher(session, cfg, flight, say) : null;

const lines = new HostLines(
  HOST_LINE_MAX_BYTES,
  (body, t) => session.hostTraffic?.line(body, t),
  (bytes, t) => session.hostTraffic?.oversize(bytes, t),
);

/** Stops the session once it has started (a stop while starting would read out of order). */
async function endSession(): Promise<void> {
  await session.whenStarted().catch(() => {});
  await session.stop();
}

let finishing = false;
async function finish(): Promise<void> {
  if (finishing) return;
  finishing = true;
  await endSession();
  flight.flushPending();
  await trace?.finish();
  flight.dispose();
  await publisher?.close();
  tell({ type: 'finished' });
  port?.close();
}

/** Bytes of the host's lines taken in this batch: acknowledged once per batch. */
let acked = 0;
port.on('message', (batch: RelayToObserver | TeeBatch) => {
  for (const msg of unbatch<RelayToObserver>(batch)) onMessage(msg);
  if (acked > 0) tell({ type: 'ack', bytes: acked });
  acked = 0;
});

function onMessage(msg: RelayToObserver): void {
  switch (msg.type) {
    case 'stdin':
      lines.push(Buffer.from(msg.data), msg.t);
      acked += msg.data.byteLength;
      break;
    case 'stdin-gap':
      lines.gap(msg.bytes);
      break;
    case 'stdin-end':
    case 'host-signal':
      // The host is done with the server: the session ends with it. Whether the server's exit
      // came after the host's end is the relay's stamp on the exit (host-end.ts), not the order
      // this and the exit (through the transport worker) arrive here in.
      void endSession();
      break;
    case 'host-read':
      session.hostTraffic?.hostRead(msg.offset, msg.deliveredAt - msg.firstByteAt);
      break;
    case 'dump':
      flight.dump(msg.reason);
      break;
    case 'finish':
      void finish();
      break;
  }
}
