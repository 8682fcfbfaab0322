/**
 * The tap's threads give way to the host's path (electron/tap/native/yield.c), on real processes:
 * every thread of the tap but its main one, the observer's included (started after the relay),
 * runs on one CPU, the last the tap may use, at nice 5 or more; the tap's main thread, the
 * native relay and the server keep the scheduling the host gave them. Linux and the native relay
 * only (the JavaScript relay's tap relays on its main thread, and is left as it is).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, waitFor } from './helpers.js';
import { NATIVE_RELAY } from './tap-relays.js';

const running = new Set<ChildProcessWithoutNullStreams>();
const dirs: string[] = [];
afterEach(() => {
  for (const c of running) c.kill('SIGKILL');
  running.clear();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A server that says one line and waits for stdin's end. */
const SERVER = [
  process.execPath,
  '-e',
  'process.stdout.write(\'{"jsonrpc":"2.0","method":"ready"}\\n\'); process.stdin.resume();',
];

/** What each tap said on stderr (its own lines: the flight recorder written, ...). */
const stderr = new WeakMap<ChildProcessWithoutNullStreams, string>();

function tap(env: Record<string, string>, prefix: string[] = []): ChildProcessWithoutNullStreams {
  const dir = mkdtempSync(path.join(tmpdir(), 'tap-yield-'));
  dirs.push(dir);
  const trace = path.join(dir, 'trace.jsonl');
  const argv = [...prefix, process.execPath, CLI, 'tap', '--no-publish', '--trace', trace, '--'];
  argv.push(...SERVER);
  const child = spawn(argv[0] as string, argv.slice(1), {
    env: { ...process.env, PIPESCOPE_TAP_DIR: dir, PIPESCOPE_TRACE_DIR: dir, ...env },
  });
  running.add(child);
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    stderr.set(child, (stderr.get(child) ?? '') + d);
  });
  return child;
}

/** `0-2,5` → [0, 1, 2, 5]. */
function cpuList(text: string): number[] {
  return text
    .trim()
    .split(',')
    .flatMap((part) => {
      const [a, b] = part.split('-').map(Number) as [number, number | undefined];
      return Array.from({ length: (b ?? a) - a + 1 }, (_, i) => a + i);
    });
}

interface Sched {
  nice: number;
  cpus: number[];
}

function sched(taskDir: string): Sched {
  // Fields after the command's `) `: the state is field 3, the nice value field 19.
  const stat = readFileSync(`${taskDir}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const status = readFileSync(`${taskDir}/status`, 'utf8');
  return {
    nice: Number(stat[16]),
    cpus: cpuList(/^Cpus_allowed_list:\s*(.*)$/m.exec(status)?.[1] ?? ''),
  };
}

/** Every thread of `pid`: its tid and scheduling. */
function threads(pid: number): Map<number, Sched> {
  const out = new Map<number, Sched>();
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(t), sched(`/proc/${pid}/task/${t}`));
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

function children(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((t) =>
    readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
  );
}

/** The tap once its server has spoken and its observer is running (loaded, its transport
 *  worker started): that thread starts after the relay, so C_YIELD is what reaches it. */
async function settledTap(env: Record<string, string>, prefix: string[] = []) {
  const c = tap(env, prefix);
  let out = '';
  c.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await waitFor(() => out.includes('ready'), 15_000, 'the server ready');
  const pid = c.pid as number;
  // The observer starts at the first output and then its transport worker: the tap's threads
  // are all there once their count has not changed for a second.
  let count = 0;
  let since = Date.now();
  await waitFor(
    () => {
      const n = threads(pid).size;
      if (n !== count) [count, since] = [n, Date.now()];
      return Date.now() - since >= 1000;
    },
    15_000,
    "the tap's threads",
  );
  const kids = children(pid);
  expect(kids).toHaveLength(2); // the native relay and the server
  return { c, pid, kids };
}

const self = sched(`/proc/${process.pid}/task/${process.pid}`);
const base: Sched = { nice: getPriority(), cpus: self.cpus };

describe.runIf(process.platform === 'linux' && existsSync(NATIVE_RELAY))(
  "the tap's threads give way to the host's path (native relay)",
  () => {
    it('all but its main thread: one CPU, nice 5; the main thread, the relay and the server as they were', async () => {
      const { c, pid, kids } = await settledTap({});
      // What the tap does later starts no thread of the host's scheduling: a flight-recorder
      // dump (SIGUSR2, handled on the main thread) while a --trace file is being written.
      c.kill('SIGUSR2');
      await waitFor(
        () => (stderr.get(c) ?? '').includes('flight recorder written'),
        15_000,
        'the dump',
      );
      const all = threads(pid);
      expect(all.get(pid)).toEqual(base);
      const pinned = base.cpus.length > 1 ? [base.cpus[base.cpus.length - 1]] : base.cpus;
      const others = [...all].filter(([tid]) => tid !== pid);
      expect(others.length).toBeGreaterThanOrEqual(4);
      for (const [tid, s] of others)
        expect({ tid, ...s }).toEqual({ tid, nice: Math.max(5, base.nice), cpus: pinned });
      for (const kid of kids) for (const s of threads(kid).values()) expect(s).toEqual(base);
    }, 40_000);

    it('never makes a thread less nice than the host ran it (nice -n 12)', async () => {
      const { pid, kids } = await settledTap({}, ['nice', '-n', '12']);
      // nice(1) adds to the nice value it runs at: a suite run under `nice -n 5` starts it at 17.
      const niced = Math.min(19, base.nice + 12);
      const all = threads(pid);
      expect(all.get(pid)?.nice).toBe(niced);
      for (const s of all.values()) expect(s.nice).toBe(niced);
      for (const kid of kids) for (const s of threads(kid).values()) expect(s.nice).toBe(niced);
    }, 40_000);

    it('the relay acts on its parent only: another pid on its command line is left alone', async () => {
      // Not the relay's parent: a process of ours, with V8's and libuv's threads.
      const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30_000)'], {
        stdio: 'ignore',
      });
      running.add(other as ChildProcessWithoutNullStreams);
      const pid = other.pid as number;
      await waitFor(() => threads(pid).size >= 4, 15_000, "the other process's threads");
      // Without the tap's descriptors the relay ends at once (exit 70), after what it does first.
      const relay = spawn(NATIVE_RELAY, ['--yield-to-host', String(pid)], { stdio: 'ignore' });
      const code = await new Promise((resolve) => relay.once('exit', resolve));
      expect(code).toBe(70);
      for (const [tid, s] of threads(pid)) expect({ tid, ...s }).toEqual({ tid, ...base });
    }, 40_000);

    it('PIPESCOPE_TAP_YIELD=0: no thread is touched', async () => {
      const { pid, kids } = await settledTap({ PIPESCOPE_TAP_YIELD: '0' });
      for (const p of [pid, ...kids]) for (const s of threads(p).values()) expect(s).toEqual(base);
    }, 40_000);
  },
);
