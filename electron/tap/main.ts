/**
 * `pipescope tap [--name N] [--host LABEL] [--trace FILE [--no-redact]] [--no-publish] -- <command> [args...]`:
 * the line a user puts in a host's config in place of a server's command (DESIGN.md "Tap,
 * attach and check"). bin/pipescope.js comes here directly, before the rest of the CLI loads:
 * the host starts every server through the tap, so its start-up is the server's.
 *
 * The server is spawned first, then the observer thread starts (observer.ts: it loads the
 * engine while the relay already runs). Signals the host sends go to the server; SIGUSR2 writes
 * the flight recorder out. The tap exits as the server did: its code, or its signal re-raised.
 * Nothing the tap says goes to stdout, ever: its own lines go to stderr, prefixed.
 */

import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { isatty } from 'node:tty';
import { Worker } from 'node:worker_threads';
import type { ObserverToRelay, RelayToObserver, ToRelay } from '../wire/tap-protocol.js';
import type { HostEnd } from './host-end.js';
import { NativeRelay, nativeRelayUnavailable } from './native-relay.js';
import type { ObserverConfig } from './observer-config.js';
import { Relay, type RelayEnd } from './relay.js';
import type { Tee } from './tee.js';

/** What the tap's entry and observer need of a relay, native or Node. */
interface TapRelay {
  readonly child: ChildProcess;
  readonly hostEnd: HostEnd;
  readonly stdoutTee: Tee;
  readonly stderrTee: Tee;
  readonly stdinTee: Tee;
  readonly done: Promise<RelayEnd>;
  onWorkerMessage(msg: ToRelay): void;
  onFirstOutput(fn: () => void): void;
  /** The server has written, and the copies are held back until the host has it (native). */
  outputHeld(): boolean;
  /** The observer's thread is running (the native relay has it give way to the host's path). */
  observerStarted?(): void;
}

type RelayKind = ObserverConfig['relay'];

/** The native relay where it can run; else the Node relay, and why. A terminal cannot take
 *  splice(2): a tap run by hand in one relays in JavaScript. */
function chooseRelay(command: string, args: string[], now: () => number): [TapRelay, RelayKind] {
  const why =
    nativeRelayUnavailable() ?? (isatty(1) || isatty(2) ? 'stdout or stderr is a terminal' : null);
  if (why === null) {
    // PIPESCOPE_TAP_YIELD=0: the tap's threads compete with the host's path (the bench's A/B).
    const yieldToHost = process.env.PIPESCOPE_TAP_YIELD !== '0';
    return [
      new NativeRelay(command, args, now, true, yieldToHost),
      { kind: 'native', reason: null },
    ];
  }
  return [new Relay(command, args, process, now), { kind: 'node', reason: why }];
}

/** How long the observer gets to finish its files after the server is gone. */
const OBSERVER_FINISH_MS = 3000;
/** The observer starts at the server's first output, or this long after its spawn; while the
 *  native relay holds the copies of an answer the host is still reading, it waits for them, at
 *  most OBSERVER_LATEST_MS after the spawn. */
const OBSERVER_AFTER_MS = 300;
const OBSERVER_LATEST_MS = 2000;
const OBSERVER_LOOK_MS = 50;
// SIGUSR1 too: unhandled, it would open Node's inspector in the tap (code anyone could run).
const FORWARDED = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR1'] as const;
/** Signals a Node process cannot die of by raising them (ignored, or the inspector's). */
const UNRAISABLE = new Set(['SIGPIPE', 'SIGUSR1']);

export interface TapArgs {
  name: string | null;
  host: string | null;
  trace: string | null;
  /** `--no-redact`: the `--trace` file keeps every byte, secrets included. */
  redact: boolean;
  publish: boolean;
  command: string;
  args: string[];
}

const USAGE =
  'usage: pipescope tap [--name N] [--host LABEL] [--trace FILE [--no-redact]] [--no-publish] -- <command> [args...]';

/** The tap's own flags, parsed by hand (commander is not loaded on this path). */
export function parseTapArgs(argv: string[]): TapArgs | string {
  const out: TapArgs = {
    name: null,
    host: null,
    trace: null,
    redact: true,
    publish: true,
    command: '',
    args: [],
  };
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--') break;
    if (a === '--no-publish') out.publish = false;
    else if (a === '--no-redact') out.redact = false;
    else if (a === '--name' || a === '--host' || a === '--trace') {
      const v = argv[++i];
      if (v === undefined) return `${a} needs a value\n${USAGE}`;
      out[a.slice(2) as 'name' | 'host' | 'trace'] = v;
    } else if (!a.startsWith('-')) return `the server's command goes after --\n${USAGE}`;
    else return `unknown option ${a}\n${USAGE}`;
  }
  if (!out.redact && out.trace === null) return `--no-redact needs --trace\n${USAGE}`;
  const rest = argv.slice(i + 1);
  if (i >= argv.length || rest.length === 0) return `the server's command goes after --\n${USAGE}`;
  out.command = rest[0] as string;
  out.args = rest.slice(1);
  return out;
}

/** The command line of the process that started the tap (the host), where /proc shows it. */
function parentCommand(): string | null {
  try {
    const raw = readFileSync(`/proc/${process.ppid}/cmdline`, 'utf8');
    return raw.split('\0').filter(Boolean).join(' ').slice(0, 500) || null;
  } catch {
    return null;
  }
}

function say(text: string): void {
  process.stderr.write(`pipescope tap: ${text}\n`);
}

/** Signals that arrived before the tap's own handlers (bin/pipescope.js holds them while the
 *  tap's modules load), and how to stop holding them. */
export interface HeldSignals {
  held: string[];
  release(): void;
}

export async function runTap(
  argv: string[],
  early: HeldSignals = { held: [], release: () => {} },
): Promise<void> {
  const parsed = parseTapArgs(argv);
  if (typeof parsed === 'string') {
    early.release();
    process.stderr.write(`${parsed}\n`);
    process.exitCode = 2;
    return;
  }
  const startedAtEpochMs = performance.timeOrigin + performance.now();
  const now = (): number => performance.timeOrigin + performance.now() - startedAtEpochMs;
  const [relay, relayKind] = chooseRelay(parsed.command, parsed.args, now);
  // The observer loads the engine (~150 ms of CPU): not while the server itself starts. Its
  // copies wait in the tees meanwhile (bounded), each with the time it was relayed.
  let observer: ObserverHandle | null | undefined;
  const observe = (): ObserverHandle | null => {
    if (observer === undefined)
      observer = startObserver(parsed, relay, relayKind, startedAtEpochMs);
    return observer;
  };
  const forward = (sig: (typeof FORWARDED)[number]): void => {
    relay.hostEnd.ended(now());
    relay.child.kill(sig);
    // The host ends its server this way (no stdin EOF first): the exit that follows is the end.
    observe()?.post({ type: 'host-signal', signal: sig });
  };
  const dump = (): void => observe()?.post({ type: 'dump', reason: 'SIGUSR2' });
  for (const sig of FORWARDED) process.on(sig, () => forward(sig));
  process.on('SIGUSR2', dump);
  // Ours are in place: what came while the tap loaded goes where it would have gone.
  early.release();
  for (const sig of early.held.splice(0)) {
    if (sig === 'SIGUSR2') dump();
    else if ((FORWARDED as readonly string[]).includes(sig))
      forward(sig as (typeof FORWARDED)[number]);
  }
  relay.onFirstOutput(observe);
  let deferred: NodeJS.Timeout | null = null;
  const later = (): void => {
    deferred = null;
    if (observer !== undefined) return;
    if (relay.outputHeld() && now() < OBSERVER_LATEST_MS)
      deferred = setTimeout(later, OBSERVER_LOOK_MS);
    else observe();
  };
  deferred = setTimeout(later, OBSERVER_AFTER_MS);
  const end = await relay.done;
  if (deferred) clearTimeout(deferred);
  if (end.spawnError) say(`cannot start ${parsed.command}: ${end.spawnError.message}`);
  await observe()?.finish();
  exitAs(end);
}

interface ObserverHandle {
  post(msg: RelayToObserver): void;
  finish(): Promise<void>;
}

function startObserver(
  a: TapArgs,
  relay: TapRelay,
  relayKind: RelayKind,
  startedAtEpochMs: number,
): ObserverHandle | null {
  const cfg: ObserverConfig = {
    command: a.command,
    args: a.args,
    cwd: process.cwd(),
    name: a.name ?? a.command.split(/[\\/]/).pop() ?? a.command,
    host: { label: a.host, pid: process.ppid, command: parentCommand() },
    tapPid: process.pid,
    tracePath: a.trace,
    redact: a.redact,
    publish: a.publish,
    relay: relayKind,
    startedAtEpochMs,
  };
  let worker: Worker;
  try {
    worker = new Worker(new URL('./observer.js', import.meta.url), {
      workerData: cfg,
      stdout: true, // the observer's console output must never reach our stdout
      stderr: false,
    });
  } catch (e) {
    say(`observing is off: ${(e as Error).message}`);
    return null;
  }
  relay.observerStarted?.();
  let finished: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    finished = resolve;
  });
  // Anything the observer's threads print goes to our stderr (the host's log), never stdout.
  worker.stdout.pipe(process.stderr, { end: false });
  relay.stdinTee.attach(worker);
  worker.on('message', (msg: ObserverToRelay) => {
    if (msg.type === 'stdout-port') {
      msg.port.on('message', (m: ToRelay) => relay.onWorkerMessage(m));
      relay.stdoutTee.attach(msg.port);
      relay.stderrTee.attach(msg.port);
      msg.port.unref();
    } else if (msg.type === 'ack') relay.stdinTee.ack(msg.bytes);
    else if (msg.type === 'say') say(msg.text);
    else if (msg.type === 'finished') finished();
  });
  worker.on('error', (e) => {
    say(`observing stopped: ${e.message} (the relay goes on)`);
    finished();
  });
  worker.on('exit', () => finished());
  worker.unref();
  return {
    post: (msg) => worker.postMessage(msg),
    finish: async () => {
      worker.postMessage({ type: 'finish' } satisfies RelayToObserver);
      const timer = setTimeout(finished, OBSERVER_FINISH_MS);
      await done;
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}

/** Exits as the server did: its code, or the signal that ended it, raised on ourselves. */
function exitAs(end: RelayEnd): void {
  const exit = end.exit;
  if (end.spawnError || !exit) {
    process.exit(end.spawnError?.code === 'ENOENT' ? 127 : 126);
  }
  if (!exit.signal) process.exit(exit.code ?? 0);
  // The shell's convention where the signal cannot end us (or does not, in time).
  const number = constants.signals[exit.signal as NodeJS.Signals] ?? 15;
  if (UNRAISABLE.has(exit.signal)) process.exit(128 + number);
  for (const sig of FORWARDED) process.removeAllListeners(sig);
  process.removeAllListeners('SIGUSR2');
  setTimeout(() => process.exit(128 + number), 500);
  process.kill(process.pid, exit.signal);
}
