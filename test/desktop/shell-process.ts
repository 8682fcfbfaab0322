/**
 * The Electron shell run in a plain Node child process under the Electron double
 * (test/desktop/double/): the real built electron/main/main.js, its real SessionManager, worker
 * threads and demo servers, with a stand-in `electron` module given by a test-only resolver hook.
 * This side forks it, sends it commands (double/driver.mjs lists them), hears what the shell
 * sends its window (`webContents.send`), and owns it: `dispose` kills it if a test left it
 * running, and every shell started is disposed after each test (`disposeAll`).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BUILT_MAIN = path.join(ROOT, 'dist/electron/main/main.js');
const DOUBLE = path.join(ROOT, 'test/desktop/double');

export interface CallRecord {
  seq: number;
  api: string;
  args: unknown[];
  ready: boolean;
}

export interface MenuItemSummary {
  id?: string;
  label?: string;
  role?: string;
  type?: string;
  accelerator?: string;
  enabled?: boolean;
  click: boolean;
  submenu?: MenuItemSummary[];
}

export interface ShellState {
  ready: boolean;
  sandboxEnabled: boolean;
  calls: CallRecord[];
  unknown: string[];
  misuse: string[];
  errors: string[];
  importers: string[];
  windows: {
    id: number;
    options: { webPreferences: Record<string, unknown> } & Record<string, unknown>;
    contents: number;
    destroyed: boolean;
    minimized: boolean;
    visible: boolean;
    focused: boolean;
  }[];
  contents: {
    id: number;
    kind: string;
    url: string;
    destroyed: boolean;
    windowOpenHandler: boolean;
  }[];
  ipcChannels: string[];
  protocolSchemes: string[];
  privilegedSchemes: { scheme: string; privileges: Record<string, boolean> }[] | null;
  sessionHandlers: Record<string, boolean>;
  menu: MenuItemSummary[] | null;
}

/** A frame an IPC call comes from: 'main' is the window's main frame at its current URL. */
export type FrameSpec = 'main' | null | { url: string; parent?: string };

export interface SentEvent {
  contents: number;
  channel: string;
  args: unknown[];
}

export interface ShellOptions {
  /** The main.js to run (default: the build's). */
  main?: string;
  /** The single-instance lock's folder (a second shell given the same one is refused). */
  userData?: string;
  /** What app.getAppPath() answers (default: the repository, as `electron .` would). */
  appPath?: string;
  packaged?: boolean;
  env?: Record<string, string>;
}

type Message =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: string }
  | { event: 'send'; contents: number; channel: string; args: unknown[] }
  | { event: 'loaded' }
  | { event: 'error'; text: string }
  | { event: 'exit'; code: number; state: ShellState };

const live = new Set<ShellProcess>();

export class ShellProcess {
  readonly child: ChildProcess;
  readonly userData: string;
  /** Errors the shell's process reported (uncaught, unhandled rejections). */
  readonly errors: string[] = [];
  readonly sent: SentEvent[] = [];
  /** Server pids the shell reported (SessionInfo.pid): their groups are killed if left. */
  readonly serverPids = new Set<number>();
  /** The state the shell reported as its app quit for good (null until then). */
  finalState: ShellState | null = null;
  private stderrText = '';
  private nextId = 1;
  private readonly pending = new Map<number, (m: Message) => void>();
  private readonly sendListeners = new Set<(e: SentEvent) => void>();
  readonly loaded: Promise<void>;
  /** Resolves with the exit code (or signal) when the process ends. */
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  private ownsUserData: boolean;

  constructor(options: ShellOptions = {}) {
    this.ownsUserData = options.userData === undefined;
    this.userData = options.userData ?? mkdtempSync(path.join(tmpdir(), 'pipescope-shell-'));
    const home = path.join(this.userData, 'home');
    this.child = fork(path.join(DOUBLE, 'driver.mjs'), [options.main ?? BUILT_MAIN], {
      execArgv: ['--import', path.join(DOUBLE, 'register.mjs')],
      serialization: 'advanced',
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        TMPDIR: process.env.TMPDIR ?? tmpdir(),
        PIPESCOPE_TAP_DIR: path.join(this.userData, 'taps'),
        PIPESCOPE_TRACE_DIR: path.join(this.userData, 'traces'),
        DOUBLE_USER_DATA: this.userData,
        DOUBLE_DOCUMENTS: path.join(this.userData, 'documents'),
        DOUBLE_APP_PATH: options.appPath ?? ROOT,
        DOUBLE_PACKAGED: options.packaged ? '1' : '0',
        ...options.env,
      },
    });
    live.add(this);
    this.child.stderr?.on('data', (d: Buffer) => {
      this.stderrText += d.toString();
    });
    this.child.stdout?.on('data', (d: Buffer) => {
      this.stderrText += d.toString();
    });
    let onLoaded: () => void = () => {};
    this.loaded = new Promise((resolve) => {
      onLoaded = resolve;
    });
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => {
        for (const reply of this.pending.values())
          reply({ id: 0, ok: false, error: `the shell exited (${code ?? signal})` });
        this.pending.clear();
        resolve({ code, signal });
      });
    });
    this.child.on('message', (m: Message) => {
      if ('id' in m) {
        this.pending.get(m.id)?.(m);
        this.pending.delete(m.id);
      } else if (m.event === 'send') {
        const e = { contents: m.contents, channel: m.channel, args: m.args };
        this.sent.push(e);
        this.notePids(e.args[0]);
        for (const l of this.sendListeners) l(e);
      } else if (m.event === 'loaded') onLoaded();
      else if (m.event === 'error') this.errors.push(m.text);
      else if (m.event === 'exit') this.finalState = m.state;
    });
  }

  private notePids(event: unknown): void {
    const e = event as { type?: string; sessions?: { pid: number | null }[] } | undefined;
    if (e?.type !== 'sessions') return;
    for (const s of e.sessions ?? []) if (s.pid) this.serverPids.add(s.pid);
  }

  get stderr(): string {
    return this.stderrText;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** One driver command; rejects with the driver's error. */
  command<T>(op: string, args: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null)
        return reject(new Error(`the shell has exited; ${op} not sent`));
      this.pending.set(id, (m) => {
        if ('ok' in m && m.ok) resolve(m.value as T);
        else reject(new Error('error' in m ? m.error : 'no answer'));
      });
      this.child.send({ id, op, args });
    });
  }

  state(): Promise<ShellState> {
    return this.command<ShellState>('state');
  }

  /** What the shell's IPC handler answers to `(args)` on `channel`, from `frame`. */
  invoke(
    channel: string,
    args: unknown[],
    from: { frame?: FrameSpec; contents?: number } = {},
  ): Promise<unknown> {
    return this.command('invoke', { channel, args, frame: from.frame, contents: from.contents });
  }

  onSend(listener: (e: SentEvent) => void): () => void {
    this.sendListeners.add(listener);
    return () => this.sendListeners.delete(listener);
  }

  /** Waits until `predicate` holds on the state (polled), or fails naming `what`. */
  async waitForState(
    predicate: (s: ShellState) => boolean,
    what: string,
    ms = 10_000,
  ): Promise<ShellState> {
    const deadline = Date.now() + ms;
    for (;;) {
      const s = await this.state();
      if (predicate(s)) return s;
      if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Waits for the first sent event matching `predicate` (already sent ones included). */
  waitForSent(predicate: (e: SentEvent) => boolean, what: string, ms = 10_000): Promise<SentEvent> {
    const found = this.sent.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`timed out after ${ms} ms waiting for ${what}`));
      }, ms);
      const off = this.onSend((e) => {
        if (!predicate(e)) return;
        clearTimeout(timer);
        off();
        resolve(e);
      });
    });
  }

  /** Waits for the process to end, or fails after `ms`. */
  async waitForExit(ms = 15_000): Promise<{ code: number | null; signal: string | null }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the shell did not exit within ${ms} ms\n${this.stderr}`)),
        ms,
      );
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Ends the process if a test left it running (SIGTERM: the shell quits through its guard;
   * SIGKILL after 10 s), then kills whatever is left of the server groups it reported, and
   * removes its folder.
   */
  async dispose(): Promise<void> {
    live.delete(this);
    if (this.running) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
      await this.exited;
      clearTimeout(timer);
    }
    for (const pid of this.serverPids) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone, as it should be
      }
    }
    if (this.ownsUserData) rmSync(this.userData, { recursive: true, force: true });
  }
}

/** afterEach: every shell a test started is gone. */
export async function disposeAll(): Promise<void> {
  await Promise.all([...live].map((s) => s.dispose()));
}

/** Starts a shell and waits until its window has loaded the app page. */
export async function startShell(options: ShellOptions = {}): Promise<ShellProcess> {
  const shell = new ShellProcess(options);
  await Promise.race([
    shell.loaded,
    shell.exited.then(({ code, signal }) => {
      throw new Error(`the shell exited (${code ?? signal}) before it loaded\n${shell.stderr}`);
    }),
  ]);
  await shell.waitForState(
    (s) => s.contents.some((c) => c.url.startsWith('app://')),
    'the window to load its page',
    20_000,
  );
  return shell;
}
