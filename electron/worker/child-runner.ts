/**
 * Child runner: spawns the server and runs the stop ladder (HARDENING.md 16-22).
 *
 * Owns: the child process and its process group. Fed by: the transport worker. Listens:
 * `onExit` once the child's 'exit' is observed.
 *
 * Spawned with an argv array and no shell, detached into its own process group so that a stop
 * reaches grandchildren too. After the child's exit has been observed it is never signalled
 * again. Its group is signalled while our pipes are still held open (a descendant is alive, so
 * the pid cannot have been reused while the group exists), or while the process table shows
 * live members of the group and no process with the leader's pid (a pid in use as a group id is
 * not given to a new process): a grandchild that let go of the pipes (`sleep 300 </dev/null
 * >/dev/null &`) is stopped all the same. Processes still alive after the ladder are named
 * (`left`): members of the group, and processes outside it (setsid, a double fork) that hold
 * the server's stdio, which are signalled by pid since they hold it right now.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { ExitInfo, LeftProcess } from '../wire/protocol.js';
import { type ProcessEntry, processTable } from './process-table.js';
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

/** How often the ladder looks at the table while only group members keep it waiting. */
const GROUP_POLL_MS = 50;
/** How long a stdio holder outside the group gets after SIGTERM, then after SIGKILL. */
const HOLDER_GRACE_MS = 500;

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
  /** Processes still alive after the ladder (empty when none, or when the table is unknown). */
  readonly left: LeftProcess[] = [];
  private readonly table = processTable();
  /** What the server's stdio fds named at spawn (to find who holds them at the end). */
  private stdio: string[] | null = null;

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
    this.child.once('spawn', () => {
      if (this.child.pid !== undefined) this.stdio = this.table.stdioOf(this.child.pid);
    });
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

  /**
   * Live members of the leader's group once the leader is reaped, as far as the table can tell
   * that the group is still ours (see header); empty when it cannot.
   */
  private groupLeft(): ProcessEntry[] {
    const pid = this.child.pid;
    if (pid === undefined || this.exit === null) return [];
    if (this.table.exists(pid) !== false) return []; // unknown, or the pid was given again
    return this.table.groupMembers(pid) ?? [];
  }

  private pipesDone(): boolean {
    return this.exit !== null && this.pipesOpen === 0;
  }

  private done(): boolean {
    return this.pipesDone() && this.groupLeft().length === 0;
  }

  private waitDone(ms: number): Promise<boolean> {
    if (this.done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      let poll: NodeJS.Timeout | null = null;
      const finish = (v: boolean): void => {
        clearTimeout(timer);
        if (poll) clearInterval(poll);
        resolve(v);
      };
      const check = (): void => {
        if (this.done()) finish(true);
        // Only group members left: nothing will tell us, so look.
        else if (this.pipesDone() && !poll) poll = setInterval(check, GROUP_POLL_MS);
      };
      const timer = setTimeout(() => finish(this.done()), ms);
      this.exitWaiters.push(check);
      this.pipeWaiters.push(check);
      check();
    });
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    // Signal the leader only while its exit is unobserved; the group only while a member
    // still holds our pipes, or the table shows members and no new owner of the pid.
    if (this.pipesDone() && this.groupLeft().length === 0) return;
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
    // Signals to the group reach nobody once only processes outside it hold the pipes.
    if (!this.onlyOutsideHolders()) {
      this.steps.push('sigterm');
      this.signalGroup('SIGTERM');
      if (await this.waitDone(grace.afterSigterm)) return this.steps;
    }
    if (!this.onlyOutsideHolders()) {
      this.steps.push('sigkill');
      this.signalGroup('SIGKILL');
      if (await this.waitDone(grace.afterSigkill)) return this.steps;
    }
    for (const p of this.groupLeft()) this.left.push({ ...p, why: 'group', killed: false });
    if (!this.pipesDone()) await this.stopStdioHolders();
    if (this.pipesDone()) return this.steps;
    // Something we cannot stop holds the pipes: stop reading them so we can go.
    this.steps.push('abandoned');
    this.stdout.destroy();
    this.stderr.destroy();
    this.stdin.destroy();
    return this.steps;
  }

  /** The leader is reaped, its group is empty, and yet our pipes are held: by processes that
   *  left the group (known only where the table can tell). */
  private onlyOutsideHolders(): boolean {
    const pid = this.child.pid;
    if (pid === undefined || this.exit === null || this.pipesOpen === 0) return false;
    return this.table.groupMembers(pid)?.length === 0;
  }

  /** Processes outside the group that hold the server's stdio: named, then signalled by pid. */
  private async stopStdioHolders(): Promise<void> {
    if (!this.stdio || this.stdio.length === 0) return;
    const holders = this.table.holdersOf(this.stdio, process.pid) ?? [];
    const inGroup = new Set(this.left.map((p) => p.pid));
    const outside = holders.filter((p) => !inGroup.has(p.pid));
    if (outside.length === 0) return;
    const signal = (sig: NodeJS.Signals): void => {
      for (const p of outside) {
        try {
          process.kill(p.pid, sig);
        } catch {
          // gone already
        }
      }
    };
    const gone = (): boolean => outside.every((p) => this.table.exists(p.pid) === false);
    const settle = async (): Promise<void> => {
      for (let waited = 0; waited < HOLDER_GRACE_MS && !gone(); waited += GROUP_POLL_MS)
        await new Promise((r) => setTimeout(r, GROUP_POLL_MS));
    };
    signal('SIGTERM');
    await settle();
    if (!gone()) {
      signal('SIGKILL');
      await settle();
    }
    for (const p of outside)
      this.left.push({ ...p, why: 'stdio', killed: this.table.exists(p.pid) === false });
    // Our pipes close once their last holder is gone.
    await this.waitDone(HOLDER_GRACE_MS);
  }
}
