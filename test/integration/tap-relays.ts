/**
 * The tap's two relays, for the tap suites that run once with each: `native` (Linux, splice;
 * dist/electron/tap/pipescope-relay, built by `npm run build` when a C compiler is there) and
 * `node` (the JavaScript relay, which every other platform uses). Where the native relay was not
 * built, its runs are left out: test/integration/native-relay.test.ts fails on Linux when a C
 * compiler is there and the relay is missing, so CI cannot skip them by accident.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import { INITIALIZED, initializeLine } from '../fixtures/host-messages.js';
import { CLI, REPO, waitFor } from './helpers.js';

export const NATIVE_RELAY = path.join(REPO, 'dist/electron/tap/pipescope-relay');
/** The native relay's sources (relay.c says what it is; relay.h, what its parts share). */
export const RELAY_SOURCES = readdirSync(path.join(REPO, 'electron/tap/native'))
  .filter((f) => f.endsWith('.c'))
  .sort()
  .map((f) => path.join(REPO, 'electron/tap/native', f));

export interface TapRelayVariant {
  name: 'native' | 'node';
  /** What the tap's environment adds to choose it. */
  env: Record<string, string>;
}

export const TAP_RELAYS: TapRelayVariant[] = [
  ...(process.platform === 'linux' && existsSync(NATIVE_RELAY)
    ? [{ name: 'native' as const, env: {} }]
    : []),
  { name: 'node', env: { PIPESCOPE_TAP_RELAY: 'node' } },
];

/** A tap this test drives as its host, and what the host has read of it. */
export interface TappedByTest {
  child: ChildProcessWithoutNullStreams;
  /** The first MiB and the last 4 KiB the host read (an 8 MiB answer ends with its id). */
  out: () => string;
  /** The last 4 KiB alone, and how many bytes in all. */
  tail: () => string;
  bytes: () => number;
  closed: Promise<number | null>;
}

/** `pipescope tap <argv> -- <server>`, its taps folder and traces in `dir`, `env` added. */
function tapByTest(
  server: { command: string; args: string[] },
  argv: string[],
  dir: string,
  env: Record<string, string>,
): TappedByTest {
  const child = spawn(
    process.execPath,
    [CLI, 'tap', ...argv, '--', server.command, ...server.args],
    {
      env: { ...process.env, PIPESCOPE_TAP_DIR: dir, PIPESCOPE_TRACE_DIR: dir, ...env },
    },
  );
  let head = '';
  let tail = '';
  let bytes = 0;
  child.stdout.on('data', (d: Buffer) => {
    bytes += d.length;
    if (head.length < 1024 * 1024) head += d.toString('utf8');
    tail = (tail + d.subarray(Math.max(0, d.length - 4096)).toString('latin1')).slice(-4096);
  });
  child.stderr.on('data', () => {});
  const closed = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, out: () => head + tail, tail: () => tail, bytes: () => bytes, closed };
}

/** tapByTest for a test file (call it at the top level, `env` read at each start): every tap
 *  and process it is given is killed after each test. */
export function tapStarter(env: () => Record<string, string>): {
  tap: (server: { command: string; args: string[] }, argv: string[], dir: string) => TappedByTest;
  own: (child: ChildProcessWithoutNullStreams) => void;
} {
  const running = new Set<ChildProcessWithoutNullStreams>();
  afterEach(() => {
    for (const c of running) c.kill('SIGKILL');
    running.clear();
  });
  return {
    tap: (server, argv, dir) => {
      const t = tapByTest(server, argv, dir, env());
      running.add(t.child);
      return t;
    },
    own: (child) => void running.add(child),
  };
}

/** The host's handshake through the tap: initialize, its answer, initialized. */
export async function handshake(t: TappedByTest): Promise<void> {
  t.child.stdin.write(initializeLine('test-host'));
  await waitFor(() => t.tail().includes('"id":1'), 10_000, 'the answer to initialize');
  t.child.stdin.write(INITIALIZED);
}
