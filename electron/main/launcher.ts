/**
 * `npm start` (scripts/start.mjs): launch the Electron app, or say in one line why it cannot run
 * here and start browser mode instead (issue 4, "Electron shell"). Runs in plain Node and never
 * imports 'electron'. Owns: the Electron child (its signals are forwarded, its startup stderr is
 * held back so a failed start prints one line, not a crash log) and, on fallback, browser mode in
 * this same process (`runWebCommand`, which handles its own SIGINT/SIGTERM and stop ladder).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runWebCommand } from '../web/run.js';
import {
  electronChildEnv,
  fallbackLine,
  type LaunchEnvironment,
  parseStartArgs,
  planLaunch,
  type StartArgs,
} from './launch-policy.js';

/** How long Electron must stay up before it counts as started. */
export const ELECTRON_STARTUP_MS = 4000;
const STDERR_HOLD_BYTES = 16 * 1024;

export interface StartOptions {
  /** Package root (holds package.json and node_modules/). Default: two levels above dist/electron/main. */
  root?: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  out?: (line: string) => void;
  err?: (line: string) => void;
  startupMs?: number;
  /** Stop when the process that started us goes away (default; tests turn it off). */
  watchParent?: boolean;
}

type ElectronOutcome = { started: true; code: number } | { started: false; reason: string };

function firstLine(text: string): string {
  const line = text.split(/\r?\n/).find((l) => l.trim().length > 0) ?? '';
  return line.length > 160 ? `${line.slice(0, 157)}...` : line.trim();
}

function signalExitCode(signal: NodeJS.Signals | null): number {
  if (!signal) return 1;
  const numbers: Partial<Record<NodeJS.Signals, number>> = {
    SIGHUP: 1,
    SIGINT: 2,
    SIGTERM: 15,
    SIGKILL: 9,
  };
  return 128 + (numbers[signal] ?? 0);
}

/** Spawns Electron on the app; resolves `started: false` if it dies inside the startup window. */
function runElectron(
  binary: string,
  root: string,
  env: NodeJS.ProcessEnv,
  startupMs: number,
): Promise<ElectronOutcome> {
  return new Promise((resolve) => {
    const child = spawn(binary, [root], {
      cwd: root,
      env: electronChildEnv(env),
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let held = '';
    let started = false;
    const forward = (signal: NodeJS.Signals): void => {
      child.kill(signal);
    };
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (const s of signals) process.on(s, forward);
    const detach = (): void => {
      for (const s of signals) process.off(s, forward);
    };
    child.stderr.on('data', (chunk: Buffer) => {
      if (started) process.stderr.write(chunk);
      else if (held.length < STDERR_HOLD_BYTES) held += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      started = true;
      if (held) process.stderr.write(held);
    }, startupMs);
    child.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      detach();
      resolve({ started: false, reason: `Electron failed to start (${e.code ?? e.message})` });
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      detach();
      // Exit 0 at once is a normal outcome too (another instance held the single-instance lock).
      if (started || code === 0) {
        resolve({ started: true, code: code ?? signalExitCode(signal) });
        return;
      }
      const detail = firstLine(held);
      const how = signal ? `signal ${signal}` : `code ${code}`;
      resolve({
        started: false,
        reason: `Electron exited at startup (${how}${detail ? `: ${detail}` : ''})`,
      });
    });
  });
}

function defaultRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
}

async function browserMode(args: StartArgs): Promise<number> {
  return runWebCommand({ port: args.port, open: args.open });
}

/** How often the launcher checks that whoever started it is still there. */
const PARENT_CHECK_MS = 500;

/**
 * Stops the launch (a SIGTERM to ourselves: browser mode and the Electron child are stopped by
 * the handlers they have) once our parent is gone. `npm start` runs us under a shell, and a
 * SIGTERM to npm ends the shell without a word to us: we, and every server we had started, were
 * left running. Returns what stops the watch.
 */
export function stopWithParent(ppid = process.ppid, everyMs = PARENT_CHECK_MS): () => void {
  const timer = setInterval(() => {
    if (process.ppid === ppid) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** The whole `npm start`; resolves with the exit status. */
export async function runStart(
  argv: readonly string[],
  options: StartOptions = {},
): Promise<number> {
  const out = options.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const errOut = options.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  const parsed = parseStartArgs(argv);
  if (!parsed.ok) {
    errOut(parsed.message);
    return 2;
  }
  const launchEnv: LaunchEnvironment = {
    root: options.root ?? defaultRoot(),
    env: options.env ?? process.env,
    platform: options.platform ?? process.platform,
  };
  const plan = planLaunch(parsed.args, launchEnv);
  const unwatch = options.watchParent === false ? () => {} : stopWithParent();
  try {
    return await launch(plan, parsed.args, launchEnv, options, out, errOut);
  } finally {
    unwatch();
  }
}

async function launch(
  plan: ReturnType<typeof planLaunch>,
  args: StartArgs,
  launchEnv: LaunchEnvironment,
  options: StartOptions,
  out: (line: string) => void,
  errOut: (line: string) => void,
): Promise<number> {
  if (plan.mode === 'fail') {
    errOut(`pipescope: ${plan.reason}`);
    return 1;
  }
  if (plan.mode === 'electron') {
    const outcome = await runElectron(
      plan.binary,
      launchEnv.root,
      options.env ?? process.env,
      options.startupMs ?? ELECTRON_STARTUP_MS,
    );
    if (outcome.started) return outcome.code;
    if (args.requireElectron) {
      errOut(`pipescope: ${outcome.reason}`);
      return 1;
    }
    out(fallbackLine(outcome.reason));
    return browserMode(args);
  }
  if (plan.reason) out(fallbackLine(plan.reason));
  return browserMode(args);
}
