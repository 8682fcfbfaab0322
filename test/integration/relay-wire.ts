/**
 * The native relay (dist/electron/tap/pipescope-relay) driven directly, as native-relay.ts
 * drives it, with this test as both the host (fds 0-2) and the tap (fds 6-8): a real server,
 * real sockets, the relay's records read with the tap's own decoder. For tests that need to
 * play a tap that is stuck, or a host whose fds are not sockets.
 */
import { type ChildProcess, type StdioOptions, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { afterEach } from 'vitest';
import {
  type NativeRecord,
  type Piece,
  Reassembler,
  RecordReader,
} from '../../dist/electron/tap/native-records.js';
import { NATIVE_RELAY } from './tap-relays.js';

export interface RelayRun {
  server: ChildProcess;
  relay: ChildProcess;
  /** The relay's fds 0, 1, 2 where the host side is a pipe of ours (else null). */
  hostIn: Writable | null;
  hostOut: Readable | null;
  hostErr: Readable | null;
  ctrl: Readable & Writable;
  copies: [Readable, Readable];
  records: NativeRecord[];
  /** Control bytes received so far. */
  ctrlBytes: () => number;
  /** Stdout's and stderr's copies put back together with their marks (pieces in order). */
  pieces: [Piece[], Piece[]];
  /** The relay's exit, once its records and copies are all read. */
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

export interface RelayOptions {
  /** What the relay gets as fds 0, 1, 2 ('pipe' by default). */
  host?: [StdioOptions[number], StdioOptions[number], StdioOptions[number]];
  /** Read the control fd from the start (false: a stuck tap; call `readCtrl` later). */
  readCtrl?: boolean;
  /** The relay's arguments (tests only: `--slow-copier`, its copier thread kept behind;
   *  `--no-populate`, as on a kernel without MADV_POPULATE_WRITE). */
  relayArgs?: string[];
  /** Another build of the relay (a sanitizer's), and what its environment adds. */
  binary?: string;
  env?: Record<string, string>;
}

export function startRelay(argv: string[], o: RelayOptions = {}): RelayRun {
  const server = spawn(argv[0] as string, argv.slice(1), {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const own = [server.stdin, server.stdout, server.stderr] as (Readable | Writable)[];
  const host = o.host ?? ['pipe', 'pipe', 'pipe'];
  const relay = spawn(o.binary ?? NATIVE_RELAY, o.relayArgs ?? [], {
    stdio: [...host, ...own, 'pipe', 'pipe', 'pipe'] as StdioOptions,
    ...(o.env && { env: { ...process.env, ...o.env } }),
  });
  for (const s of own) s.destroy();
  const stdio = relay.stdio as unknown as (Readable & Writable)[];
  const ctrl = stdio[6] as Readable & Writable;
  const copies: [Readable, Readable] = [stdio[7] as Readable, stdio[8] as Readable];
  const pieces: [Piece[], Piece[]] = [[], []];
  const out = [
    new Reassembler((p) => pieces[0].push(p)),
    new Reassembler((p) => pieces[1].push(p)),
  ];
  const records: NativeRecord[] = [];
  const reader = new RecordReader();
  let bytes = 0;
  ctrl.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    for (const r of reader.push(chunk)) {
      records.push(r);
      if (r.type === 'mark') out[r.dir]?.mark(r);
    }
  });
  if (o.readCtrl === false) ctrl.pause();
  ctrl.on('error', () => {});
  for (const dir of [0, 1] as const) {
    copies[dir].on('data', (c: Buffer) => out[dir]?.bytes(c));
    copies[dir].on('error', () => {});
  }
  const closed = (s: Readable): Promise<void> => new Promise((r) => s.once('close', () => r()));
  const exited = Promise.all([
    new Promise<[number | null, NodeJS.Signals | null]>((r) =>
      relay.once('exit', (code, signal) => r([code, signal])),
    ),
    closed(ctrl),
    ...copies.map(closed),
  ]).then(([exit]) => exit);
  return {
    server,
    relay,
    hostIn: host[0] === 'pipe' ? (relay.stdin as Writable) : null,
    hostOut: host[1] === 'pipe' ? (relay.stdout as Readable) : null,
    hostErr: host[2] === 'pipe' ? (relay.stderr as Readable) : null,
    ctrl,
    copies,
    records,
    ctrlBytes: () => bytes,
    pieces,
    exited,
  };
}

/** startRelay for a test file (call it at the top level): every relay started through it is
 *  stopped after each test. `defaults` go under each call's own options. */
export function relayStarter(
  defaults: RelayOptions = {},
): (argv: string[], o?: RelayOptions) => RelayRun {
  const runs: RelayRun[] = [];
  afterEach(() => {
    for (const r of runs.splice(0)) stopRelay(r);
  });
  return (argv, o = {}) => {
    const r = startRelay(argv, { ...defaults, ...o });
    runs.push(r);
    return r;
  };
}

/** Ends what a run left: the relay and the server's group. */
export function stopRelay(run: RelayRun): void {
  for (const kill of [
    () => run.relay.kill('SIGKILL'),
    () => process.kill(-(run.server.pid as number), 'SIGKILL'),
  ]) {
    try {
      kill();
    } catch {
      // gone already
    }
  }
}

/** The bytes the pieces of one stream carry, in order (gaps as `null`). */
export function piecesText(pieces: Piece[]): (string | null)[] {
  return pieces.map((p) => (p.kind === 'bytes' ? Buffer.from(p.data).toString('latin1') : null));
}
