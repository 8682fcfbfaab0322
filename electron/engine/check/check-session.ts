/**
 * One server process under a `check` case: a Session of the engine (real process, real pipes,
 * the worker's framing, findings and process evidence) with the bounded steps the battery is
 * made of — handshake, a call with its budget, a ping, waits on a condition, the stop — and a
 * record of the processes seen under the server during each call.
 *
 * Owns: its Session (stopped by `stop`, which every case's runner guarantees) and the listener
 * that follows the process samples. Fed by: the case that opened it. Listens: the Session's
 * `process` and `finding` events.
 */
import type { InitializeResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { FindingCode, LiveFinding } from '../../../shared/findings.js';
import type { HostProfileId } from '../../../shared/host-profiles.js';
import type { ProcessSnapshot } from '../../../shared/process.js';
import type { RequestRecord } from '../../../shared/requests.js';
import { callTool, initialize, listTools, McpFlowError } from '../session/mcp-client.js';
import { descendantsOf, serverOf } from '../session/process-findings.js';
import { Session } from '../session/session.js';
import type { FrameBytes } from '../transport/frame-bytes.js';

/** What `check` runs: the server and the limits it is judged against. */
export interface CheckTarget {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  hostProfile?: HostProfileId;
  resultBudgetBytes?: number;
}

/** Findings after which an owed answer cannot come: the wait for it ends at once. */
export const DOOM_CODES: readonly FindingCode[] = [
  'server-output-buffered',
  'subprocess-blocked',
  'stdin-blocked',
  'server-exited',
  'truncated-at-exit',
];

/** Findings that mean the server is gone: what it owed fails with the session, not by timeout. */
const EXIT_CODES: readonly FindingCode[] = ['server-exited', 'truncated-at-exit'];

/** How long a session whose server exited takes to fail what it still owed (ms). */
const EXIT_SETTLE_MS = 3000;

export type Handshake =
  | { ok: true; init: InitializeResult; tools: Tool[]; ms: number }
  | { ok: false; why: string };

export interface CallOutcome {
  record: RequestRecord;
  response: FrameBytes | null;
  /** The finding that ended the wait early (the answer could not come), if one did. */
  cutBy: LiveFinding | null;
  /** Processes that appeared under the server while the call was owed. */
  subprocesses: { pid: number; command: string }[];
}

/** A tools/call sent and not yet waited for. */
export interface PendingCall {
  record: RequestRecord;
  response: FrameBytes | null;
  settled: boolean;
  /** Processes that appeared under the server since it was sent. */
  subprocesses(): { pid: number; command: string }[];
}

export interface StopOutcome {
  exit: { code: number | null; signal: string | null } | null;
  /** ms from closing stdin to the exit (null: no exit seen, or it exited before the stop). */
  exitAfterMs: number | null;
  exitedBeforeStop: boolean;
}

export class CheckSession {
  readonly session: Session;
  /** Pids under the server in the newest sample, and every pid ever seen with its command. */
  private current = new Set<number>();
  private readonly seen = new Map<number, string>();
  private stopped: Promise<StopOutcome> | null = null;

  constructor(
    target: CheckTarget,
    readonly label: string,
  ) {
    this.session = new Session({
      command: target.command,
      args: target.args,
      env: target.env,
      cwd: target.cwd,
      hostProfile: target.hostProfile,
      resultBudgetBytes: target.resultBudgetBytes,
      // Every wait of the battery is its own (below); the session times nothing out itself.
      requestTimeoutMs: 0,
      processSampling: true,
    });
    this.session.on('process', (snap) => this.onSample(snap));
  }

  private onSample(snap: ProcessSnapshot): void {
    const root = serverOf(snap);
    if (!root) return;
    this.current = new Set();
    for (const p of descendantsOf(snap, root)) {
      this.current.add(p.pid);
      if (!this.seen.has(p.pid)) this.seen.set(p.pid, p.command);
    }
  }

  /** Live processes under the server in the newest sample. */
  childrenNow(): Set<number> {
    return new Set(this.current);
  }

  now(): number {
    return this.session.now();
  }

  /** initialize → initialized → tools/list (every page), each step within `budgetMs`. */
  async handshake(budgetMs: number): Promise<Handshake> {
    const t0 = this.now();
    try {
      const init = await this.bounded(initialize(this.session), budgetMs);
      const tools = await this.bounded(listTools(this.session), budgetMs);
      return { ok: true, init, tools, ms: this.now() - t0 };
    } catch (e) {
      if (e instanceof McpFlowError) return { ok: false, why: e.message };
      throw e;
    }
  }

  /** Sends a tools/call (with a progress token); `finish` waits for it. */
  start(name: string, args: Record<string, unknown>): PendingCall {
    const before = this.childrenNow();
    const firstSeen = this.seen.size;
    const sent = callTool(this.session, name, args);
    const pending: PendingCall = {
      record: this.session.requests.get(sent.id) as RequestRecord,
      response: null,
      settled: false,
      subprocesses: () =>
        [...this.seen.entries()]
          .slice(firstSeen)
          .filter(([pid]) => !before.has(pid))
          .map(([pid, command]) => ({ pid, command })),
    };
    void sent.done.then((o) => {
      pending.settled = true;
      pending.response = o.response;
    });
    return pending;
  }

  /**
   * Waits for a call's end: answered, `budgetMs` passed (then it is timed out: a cancellation
   * goes), a finding that dooms it (likewise), or `until` true (then it is left pending).
   */
  async finish(
    call: PendingCall,
    budgetMs: number,
    until?: () => boolean,
  ): Promise<CallOutcome & { stoppedEarly: boolean }> {
    let cutBy: LiveFinding | null = null;
    const onFinding = (f: LiveFinding, isNew: boolean): void => {
      if (call.settled || cutBy || !DOOM_CODES.includes(f.code) || !(isNew || f.active)) return;
      cutBy = f;
    };
    this.session.on('finding', onFinding);
    let stoppedEarly = false;
    try {
      await this.waitFor(
        () => {
          if (call.settled || cutBy) return true;
          if (until?.()) stoppedEarly = true;
          return stoppedEarly;
        },
        budgetMs,
        20,
      );
      // An exit ends the session, which fails what is pending: let it say so (bounded).
      const exited =
        this.session.state !== 'running' ||
        (cutBy !== null && EXIT_CODES.includes((cutBy as LiveFinding).code));
      if (!call.settled && exited) await this.waitFor(() => call.settled, EXIT_SETTLE_MS, 20);
      if (!call.settled && !stoppedEarly) this.session.timeoutPending();
    } finally {
      this.session.off('finding', onFinding);
    }
    const { record, response } = call;
    return { record, response, cutBy, subprocesses: call.subprocesses(), stoppedEarly };
  }

  /** `start` then `finish`. */
  call(
    name: string,
    args: Record<string, unknown>,
    budgetMs: number,
  ): Promise<CallOutcome & { stoppedEarly: boolean }> {
    return this.finish(this.start(name, args), budgetMs);
  }

  /** A small request (`params`: a large one, for the stdin case), within `budgetMs`. */
  async request(
    method: string,
    params: Record<string, unknown> | undefined,
    budgetMs: number,
  ): Promise<RequestRecord> {
    // Its own timer (the request table's): other requests in flight keep theirs.
    const sent = this.session.send(method, params, { timeoutMs: budgetMs });
    const record = this.session.requests.get(sent.id) as RequestRecord;
    let settled = false;
    void sent.done.then(() => {
      settled = true;
    });
    await this.waitFor(() => settled, budgetMs + EXIT_SETTLE_MS, 10);
    return record;
  }

  /** Polls `check` every `everyMs` until it holds or `ms` passed; whether it held. */
  async waitFor(check: () => boolean, ms: number, everyMs = 50): Promise<boolean> {
    const until = Date.now() + ms;
    for (;;) {
      if (check()) return true;
      // Stopped, nothing more can change (a stop in progress still settles what was owed).
      if (this.session.state === 'stopped' || this.session.state === 'failed') return check();
      if (Date.now() >= until) return false;
      await sleep(Math.min(everyMs, Math.max(1, until - Date.now())));
    }
  }

  /** Findings of this session with one of `codes`, as last seen. */
  findings(codes: readonly FindingCode[]): LiveFinding[] {
    return this.session.findings.all().filter((f) => codes.includes(f.code));
  }

  /** Stops the server through the ladder (close stdin, SIGTERM, SIGKILL; every wait bounded). */
  stop(): Promise<StopOutcome> {
    this.stopped ??= (async () => {
      const askedAt = this.now();
      const before = this.session.exit;
      await this.session.stop();
      const exit = this.session.exit;
      const exitedBeforeStop = before !== null;
      return {
        exit: exit ? { code: exit.code, signal: exit.signal } : null,
        exitAfterMs: exit && !exitedBeforeStop ? Math.max(0, exit.t - askedAt) : null,
        exitedBeforeStop,
      };
    })();
    return this.stopped;
  }

  private async bounded<T>(p: Promise<T>, ms: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.session.timeoutPending();
        reject(new McpFlowError(`no answer within ${ms} ms`, null));
      }, ms);
    });
    try {
      return await Promise.race([p, expired]);
    } finally {
      clearTimeout(timer);
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
