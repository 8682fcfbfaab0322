/**
 * Child runner: spawns the server and runs the stop ladder (HARDENING.md 16-22).
 *
 * Owns: the child process and its process group. Fed by: the transport worker. Listens:
 * `onExit` once the child's 'exit' is observed.
 *
 * Spawned with an argv array and no shell, detached into its own process group so that a stop
 * reaches grandchildren too. After the child's exit has been observed it is never signalled
 * again; its group is signalled only while our pipes are still held open, which proves a
 * descendant is alive (the pid cannot have been reused while the group exists).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { ExitInfo } from '../wire/protocol.js';
import type { ReadChannel } from './read-channel.js';

export interface StopGrace {
  afterStdinClose: number;
  afterSigterm: number;
  afterSigkill: number;
}

export interface SpawnSpec {
  command: string;
  args: string[];
  cwd?: string;
  env: Record<string, string>;
}

export type StopStep = 'stdin-closed' | 'sigterm' | 'sigkill' | 'abandoned';

export class ChildRunner {
  readonly child: ChildProcess;
  /** The server's stdout and stderr as we read them: a channel's socket, or Node's pipe. */
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly stdin: Writable;
  exit: ExitInfo | null = null;
  private exitWaiters: (() => void)[] = [];
  /** Resolves when stdout and stderr have both ended (nobody holds them any more). */
  private pipesOpen = 2;
  private pipeWaiters: (() => void)[] = [];
  readonly steps: StopStep[] = [];

  constructor(
    spec: SpawnSpec,
    private readonly now: () => number,
    onExit: (exit: ExitInfo) => void,
    channels: { stdout: ReadChannel | null; stderr: ReadChannel | null } = {
      stdout: null,
      stderr: null,
    },
  ) {
    const { stdout: out, stderr: err } = channels;
    try {
      this.child = spawn(spec.command, spec.args, {
        cwd: spec.cwd,
        env: spec.env,
        stdio: ['pipe', out?.serverEnd ?? 'pipe', err?.serverEnd ?? 'pipe'],
        detached: process.platform !== 'win32',
        shell: false,
        windowsHide: true,
      });
    } catch (e) {
      out?.reader.destroy();
      err?.reader.destroy();
      throw e;
    } finally {
      // The child has its own copies now (or there is no child): ours would keep EOF away.
      out?.serverEnd.destroy();
      err?.serverEnd.destroy();
    }
    const { stdin, stdout, stderr } = this.child;
    if (!stdin || !(stderr ?? err) || !(stdout ?? out)) throw new Error('spawn gave no pipes');
    this.stdin = stdin;
    this.stderr = err?.reader ?? (stderr as Readable);
    this.stdout = out?.reader ?? (stdout as Readable);
    this.child.once('exit', (code, signal) => {
      this.exit = { code, signal, t: this.now() };
      onExit(this.exit);
      for (const w of this.exitWaiters.splice(0)) w();
    });
    for (const stream of [this.stdout, this.stderr]) {
      stream.once('close', () => {
        this.pipesOpen -= 1;
        if (this.pipesOpen === 0) for (const w of this.pipeWaiters.splice(0)) w();
      });
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exit === null && this.child.pid !== undefined;
  }

  /** Marks a spawn that failed ('error' before 'spawn'): nothing to wait for. */
  markSpawnFailed(): void {
    this.exit = { code: null, signal: null, t: this.now() };
    this.pipesOpen = 0;
    for (const w of this.exitWaiters.splice(0)) w();
    for (const w of this.pipeWaiters.splice(0)) w();
  }

  private done(): boolean {
    return this.exit !== null && this.pipesOpen === 0;
  }

  private waitDone(ms: number): Promise<boolean> {
    if (this.done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const check = (): void => {
        if (!this.done()) return;
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => resolve(this.done()), ms);
      this.exitWaiters.push(check);
      this.pipeWaiters.push(check);
    });
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    // Signal the leader only while its exit is unobserved; the group only while a member
    // still holds our pipes (see header).
    if (this.exit !== null && this.pipesOpen === 0) return;
    try {
      if (process.platform === 'win32') {
        if (this.exit === null) this.child.kill(signal);
      } else {
        process.kill(-pid, signal);
      }
    } catch {
      // ESRCH: the group is already gone.
    }
  }

  /** The stop ladder: close stdin, wait, SIGTERM the group, wait, SIGKILL, wait. */
  async stop(grace: StopGrace): Promise<StopStep[]> {
    if (!this.stdin.destroyed) {
      this.stdin.end();
      this.steps.push('stdin-closed');
    }
    if (await this.waitDone(grace.afterStdinClose)) return this.steps;
    this.steps.push('sigterm');
    this.signalGroup('SIGTERM');
    if (await this.waitDone(grace.afterSigterm)) return this.steps;
    this.steps.push('sigkill');
    this.signalGroup('SIGKILL');
    if (await this.waitDone(grace.afterSigkill)) return this.steps;
    // Something outside our group holds the pipes: stop reading them so we can go.
    this.steps.push('abandoned');
    this.stdout.destroy();
    this.stderr.destroy();
    this.stdin.destroy();
    return this.steps;
  }
}
