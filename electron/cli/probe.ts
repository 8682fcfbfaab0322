/**
 * `pipescope probe`: runs one server headless through the engine and reports (DESIGN.md).
 *
 * initialize → notifications/initialized → tools/list → optional tools/call (with the chosen
 * reader mode and consumer delay) → optional cancellation → recovery probe → stop ladder.
 * Never hangs: every step is bounded by the `--timeout-ms` deadline, and what is still pending
 * at the deadline is timed out (a cancellation is sent) and shown in the report.
 */

import { type HostProfileId, profileSettings } from '../../shared/host-profiles.js';
import { DisposableStore, listen, toDisposable } from '../../shared/lifecycle.js';
import type { ProbeReport } from '../../shared/probe-report.js';
import type { OversizePolicy, ReaderMode } from '../../shared/session-options.js';
import { buildProbeReport, exitStatusFor } from '../engine/session/build-report.js';
import { callTool, initialize, listTools, McpFlowError } from '../engine/session/mcp-client.js';
import { Session } from '../engine/session/session.js';
import { SessionError } from '../engine/session/types.js';

export interface ProbeOptions {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  call?: string;
  callArgs?: Record<string, unknown>;
  cancelAfterMs?: number;
  cancelAfterBytes?: number;
  maxFrameBytes?: number;
  onOversize?: OversizePolicy;
  /** `--host`: a host profile's limits, under the flags given (shared/host-profiles.ts). */
  hostProfile?: HostProfileId;
  resultBudgetBytes?: number;
  timeoutMs: number;
  reader: ReaderMode;
  consumerDelayMs: number;
  /** Sample the server's process tree (default true; false: findings from the pipe alone). */
  processSampling?: boolean;
  /** Called with the live session (the trace recorder attaches here). */
  onSession?(session: Session): void;
}

export interface ProbeOutcome {
  report: ProbeReport;
  exitCode: 0 | 1 | 2;
  /** One-line error when the server could not start. */
  startError: string | null;
  /** What the probe did, in order, for the human report. */
  steps: string[];
  stderrTail: string[];
  pollution: Session['pollution'];
  /** The worker's final counters (null if it never started). */
  counters: ReturnType<Session['counters']>;
  hostProfile?: HostProfileId | null;
}

/** After a cancellation: how long stdout must stay quiet before we call the producer stopped. */
const QUIET_AFTER_CANCEL_MS = 300;

export async function runProbe(o: ProbeOptions): Promise<ProbeOutcome> {
  const startedAt = Date.now();
  const deadline = startedAt + o.timeoutMs;
  // Keep a slice of the budget for the cancellation, the recovery probe and the report.
  const reserve = Math.min(1500, Math.max(200, o.timeoutMs * 0.15));
  const remaining = (): number => Math.max(1, deadline - Date.now());
  const stepBudget = (): number => Math.max(1, remaining() - reserve);
  const steps: string[] = [];

  const session = new Session({
    command: o.command,
    args: o.args,
    env: o.env ?? {},
    cwd: o.cwd,
    maxFrameBytes: o.maxFrameBytes,
    onOversize: o.onOversize,
    hostProfile: o.hostProfile,
    resultBudgetBytes: o.resultBudgetBytes,
    readerMode: 'drain', // the handshake always drains; --reader applies from the call on
    // The probe's own deadline times requests out; a host profile's timeout comes first.
    requestTimeoutMs: (o.hostProfile && profileSettings(o.hostProfile).requestTimeoutMs) || 0,
    processSampling: o.processSampling ?? true,
  });
  o.onSession?.(session);

  let startError: string | null = null;
  try {
    await session.whenStarted();
    steps.push(`spawned pid ${session.pid}`);
    await flow(session, o, steps, stepBudget, remaining);
  } catch (e) {
    if (e instanceof SessionError) startError = e.message;
    else if (e instanceof McpFlowError) steps.push(`stopped early: ${e.message}`);
    else throw e;
  } finally {
    await session.stop();
  }
  const report = buildProbeReport(session);
  const exitCode = startError ? 2 : exitStatusFor(report);
  return {
    report,
    exitCode,
    startError,
    steps,
    stderrTail: session.stderr.tailLines(8),
    pollution: session.pollution,
    counters: session.counters(),
    hostProfile: session.config.hostProfile,
  };
}

async function flow(
  session: Session,
  o: ProbeOptions,
  steps: string[],
  stepBudget: () => number,
  remaining: () => number,
): Promise<void> {
  const init = await withDeadline(session, initialize(session), stepBudget());
  steps.push(
    `initialized: ${init.serverInfo.name} ${init.serverInfo.version} (protocol ${init.protocolVersion})`,
  );
  const tools = await withDeadline(session, listTools(session), stepBudget());
  steps.push(
    `tools/list: ${tools.length} tool(s)${tools.length ? `: ${tools.map((t) => t.name).join(', ')}` : ''}`,
  );
  if (!o.call) return;

  if (o.reader !== 'drain') session.setReaderMode(o.reader);
  if (o.consumerDelayMs > 0) session.setConsumerDelay(o.consumerDelayMs);
  const baseBytes = session.liveMetrics().stdoutBytes;
  const sent = callTool(session, o.call, o.callArgs ?? {});
  steps.push(`tools/call ${o.call} sent as id ${sent.id} (reader ${o.reader})`);

  let cancelled = false;
  const cancel = (why: string): void => {
    if (cancelled) return;
    const r = session.cancel(sent.id, why);
    if (r.ok) {
      cancelled = true;
      steps.push(`cancelled id ${sent.id}: ${why}`);
    }
  };
  // The cancellation triggers live while the call does.
  const triggers = new DisposableStore();
  if (o.cancelAfterMs !== undefined) {
    const timer = setTimeout(() => cancel(`after ${o.cancelAfterMs} ms`), o.cancelAfterMs);
    triggers.add(toDisposable(() => clearTimeout(timer)));
  }
  const onTick = (): void => {
    if (o.cancelAfterBytes === undefined) return;
    const got = session.liveMetrics().stdoutBytes - baseBytes;
    if (got >= o.cancelAfterBytes) cancel(`after ${got} stdout bytes`);
  };
  if (o.cancelAfterBytes !== undefined) triggers.add(listen(session, 'tick', onTick));

  const settled = await settleWithin(sent.done, stepBudget());
  triggers.dispose();
  if (!settled) {
    const timedOut = session.timeoutPending();
    if (timedOut.length)
      steps.push(
        `deadline: timed out ${timedOut.map((r) => `id ${r.id}`).join(', ')} (cancellation sent)`,
      );
  }
  const record = session.requests.get(sent.id);
  if (record) steps.push(`tools/call ${o.call}: ${record.status}`);

  if (record && record.cancelledAt !== null && session.state === 'running') {
    await waitProducerStopped(session, sent.id, Math.max(1, remaining() - 200));
    const rec = await session.recover(Math.max(1, Math.min(2000, remaining() - 100)));
    const verdict = rec.ok
      ? `${rec.latencyMs} ms`
      : session.recoveryAwaitsQueue
        ? 'not dispatched in time (messages still queued in the host; judged when it drains)'
        : 'failed';
    steps.push(`recovery ${rec.method}: ${verdict}`);
  }
}

/** Waits until the cancelled request is answered (late, or in time but dispatched after the
 *  cancellation) or stdout has been quiet a while. */
async function waitProducerStopped(
  session: Session,
  id: number | string,
  budgetMs: number,
): Promise<void> {
  const until = Date.now() + budgetMs;
  while (Date.now() < until) {
    const r = session.requests.get(id);
    if (r !== undefined && r.responseBytes !== null) return;
    const m = session.liveMetrics();
    const quiet =
      m.msSinceLastStdoutByte === null || m.msSinceLastStdoutByte >= QUIET_AFTER_CANCEL_MS;
    if (quiet && m.inFlightFrameBytes === 0) return;
    if (!m.readingStdout) return; // paused reader: nothing more can arrive
    await sleep(50);
  }
}

async function withDeadline<T>(session: Session, p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      session.timeoutPending();
      reject(new McpFlowError('deadline passed', null));
    }, ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `p` settled within `ms` (the timer never outlives the race). */
async function settleWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((r) => {
    timer = setTimeout(() => r(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true as const), expired]);
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
