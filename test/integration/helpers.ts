/**
 * Shared helpers of the integration suite: sessions that are always stopped, bounded waits on
 * events (never sleep-and-hope), no-process-left checks (test/fixtures/processes.ts), the CLI as a child
 * process, and small inline servers (`node -e`) for hostile transport scenarios.
 *
 * Every session started through `startSession` is tracked; `stopAllSessions` (each file's
 * afterEach) stops it through the ladder and asserts the byte invariant of DESIGN.md on its
 * final counters: stdoutBytes = Σ line bytes (with newline) + partial bytes at EOF.
 */

import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { demoCommand } from '../../dist/electron/demo-servers/launch.js';
import { Session } from '../../dist/electron/engine/session/session.js';
import type { FindingCode, LiveFinding } from '../../dist/shared/findings.js';
import type { ProbeReport } from '../../dist/shared/probe-report.js';
import type { SessionConfigInput } from '../../dist/shared/session-config.js';
import { childrenOf, groupMembers, running } from '../fixtures/processes.js';

export const MiB = 1024 * 1024;
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(REPO, 'bin/pipescope.js');

/** Every server pid (and so process group) any test in this worker started. */
export const recordedPids = new Set<number>();
const live = new Set<Session>();

/** Fast stop ladder for tests: the ladder itself is exercised, just with short rungs. */
export const FAST_LADDER = { afterStdinClose: 300, afterSigterm: 300, afterSigkill: 2000 };

export function startSession(config: SessionConfigInput): Session {
  const session = new Session({ stopGraceMs: FAST_LADDER, ...config });
  live.add(session);
  session.once('state', () => {
    if (session.pid !== null) recordedPids.add(session.pid);
  });
  return session;
}

/** A session on a built demo server, started and with its pid recorded. */
export async function startDemo(
  id: string,
  knobs: Record<string, string> = {},
  config: Partial<SessionConfigInput> = {},
): Promise<Session> {
  const session = startSession({ ...demoCommand(id, knobs), ...config });
  await withTimeout(session.whenStarted(), 5000, `demo ${id} to start`);
  if (session.pid !== null) recordedPids.add(session.pid);
  return session;
}

/** Asserts the byte invariant on the session's latest worker counters. */
export function expectByteInvariant(session: Session): void {
  const c = session.counters();
  expect(c, 'worker counters').not.toBeNull();
  if (!c) return;
  expect(c.stdoutBytes).toBe(c.lineBytes + c.partialBytesAtEof);
}

/** afterEach: stop every session through the ladder, then check what it left behind. */
export async function stopAllSessions(): Promise<void> {
  const sessions = [...live];
  live.clear();
  await Promise.all(sessions.map((s) => withTimeout(s.stop(), 10_000, 'session stop')));
  for (const s of sessions) {
    if (s.spawnError) continue;
    expect(s.state).toBe('stopped');
    expectByteInvariant(s);
    if (s.pid !== null) expect(running(s.pid), `server ${s.pid} still alive`).toBe(false);
  }
}

/**
 * After a stop, no process of the group is left. Its last ones may still be tearing down for a
 * moment: a process closes its files (the pipe's EOF, which ends the stop) before it becomes a
 * zombie, and under a loaded suite that window showed once. Bounded wait, then none may be left.
 */
export async function expectGroupGone(pgid: number, ms = 2000): Promise<void> {
  await waitFor(() => groupMembers(pgid).length === 0, ms, `process group ${pgid} gone`).catch(
    () => {},
  );
  expect(groupMembers(pgid)).toEqual([]);
}

/** The end-of-file check: no recorded server, group or child of ours is still running. */
export function expectNothingLeftBehind(): void {
  for (const pid of recordedPids) {
    expect(running(pid)).toBe(false);
    expect(groupMembers(pid).map((p) => p.pid)).toEqual([]);
  }
  expect(childrenOf().map((p) => p.pid)).toEqual([]);
}

export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([p, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `check` until it returns a value other than undefined/false, or the deadline passes. */
export async function waitFor<T>(
  check: () => T | undefined | false,
  ms: number,
  what: string,
  everyMs = 20,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Resolves with the first finding of `code` (already raised, or raised within `ms`). */
export function waitForFinding(
  session: Session,
  code: FindingCode,
  ms = 5000,
): Promise<LiveFinding> {
  const existing = session.findings.all().find((f) => f.code === code);
  if (existing) return Promise.resolve(existing);
  let listener: ((f: LiveFinding) => void) | undefined;
  const p = new Promise<LiveFinding>((resolve) => {
    listener = (f) => {
      if (f.code === code) resolve(f);
    };
    session.on('finding', listener);
  });
  return withTimeout(p, ms, `finding ${code}`).finally(() => {
    if (listener) session.off('finding', listener);
  });
}

/** Accumulates a session's stderr text; `waitFor(text)` resolves once it contains `text`. */
export function collectStderr(session: Session): {
  text(): string;
  waitFor(needle: string | RegExp, ms?: number): Promise<string>;
} {
  let all = session.stderr.text();
  session.on('stderr', (t) => {
    all += t;
  });
  const has = (needle: string | RegExp): boolean =>
    typeof needle === 'string' ? all.includes(needle) : needle.test(all);
  return {
    text: () => all,
    waitFor: (needle, ms = 5000) =>
      waitFor(() => has(needle) && all, ms, `stderr to contain ${String(needle)}`),
  };
}

export function findingCodes(session: Session): string[] {
  return session.findings.all().map((f) => f.code);
}

export interface CliResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `node bin/pipescope.js ...args` to completion (bounded), recording its pid. */
export function runCli(
  args: string[],
  timeoutMs = 20_000,
  opts: { cwd?: string } = {},
): Promise<CliResult> {
  const started = Date.now();
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid !== undefined) recordedPids.add(child.pid);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    stdout += s;
  });
  child.stderr.setEncoding('utf8').on('data', (s: string) => {
    stderr += s;
  });
  const done = new Promise<CliResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) =>
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started }),
    );
  });
  return withTimeout(done, timeoutMs, `pipescope ${args.join(' ')}`).catch((e: unknown) => {
    child.kill('SIGKILL');
    throw e;
  });
}

/**
 * The byte invariant as far as the public report shows it: when every stdout frame was a
 * response (frames = answered requests), stdoutBytes = Σ (responseBytes + newline) + partial.
 */
export function expectReportByteInvariant(report: ProbeReport): void {
  const answered = report.requests.filter((q) => q.responseBytes !== null);
  expect(report.metrics.frames).toBe(answered.length);
  const lines = answered.reduce((n, q) => n + (q.responseBytes ?? 0) + 1, 0);
  expect(report.metrics.stdoutBytes).toBe(lines + report.metrics.partialBytesAtEof);
}

/** The keys of the `probe --json` report, exactly as DESIGN.md lists them. */
export const REPORT_KEYS = ['findings', 'metrics', 'process', 'recovery', 'requests', 'server'];
export const REPORT_METRIC_KEYS = [
  'cancellationsSent',
  'dispatcherMaxDepth',
  'dispatcherWaitMs',
  'frames',
  'largestFrameBytes',
  'lateResponses',
  'oversizeFrames',
  'parseErrors',
  'partialBytesAtEof',
  'processExits',
  'stderrBytes',
  'stdinBytes',
  'stdinWaitMs',
  'stdoutBytes',
];

/**
 * Prelude of inline servers: `send(msg)` writes one JSON line, `reply(id, result)` answers, and
 * each complete stdin line is parsed and handed to the body's `onMessage(msg)`. Exits on EOF.
 */
const PRELUDE = String.raw`
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
const reply = (id, result) => send({ jsonrpc: '2.0', id, result });
let inbuf = Buffer.alloc(0);
process.stdin.on('data', (c) => {
  inbuf = Buffer.concat([inbuf, c]);
  for (let i = inbuf.indexOf(10); i !== -1; i = inbuf.indexOf(10)) {
    const line = inbuf.subarray(0, i).toString('utf8');
    inbuf = inbuf.subarray(i + 1);
    if (line.trim()) onMessage(JSON.parse(line));
  }
});
process.stdin.on('end', () => process.exit(0));
`;

/** argv of a Node server whose body defines `function onMessage(msg) {...}` (see PRELUDE). */
export function inlineServer(body: string): { command: string; args: string[] } {
  return { command: process.execPath, args: ['-e', `${PRELUDE}\n${body}`] };
}
