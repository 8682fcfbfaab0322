/**
 * The cancellations (DESIGN.md: "a timeout in a UI is not a cancellation"; the real test of
 * one is a second small request that completes fast): a tool that takes time is cancelled at
 * once (`cancel-before-work`), once its output began (`cancel-mid-output`), and while a
 * subprocess of it runs (`cancel-subprocess`). Each is followed by the session's recovery probe
 * and watched for as long as the call took when left alone: progress or an answer after the
 * cancellation is `cancel-ignored`, a slow probe `slow-recovery`, and a subprocess that outlives
 * the cancellation means the work did not stop.
 */
import { describeProcess } from '../../../shared/process.js';
import { AfterCancel } from './after-cancel.js';
import type { CheckSession, PendingCall } from './check-session.js';
import type { BatteryContext } from './context.js';
import type { Observed, Roles } from './plan.js';
import { brief, duration, failed, list, passed, size, skipped, type Verdict } from './verdict.js';

export type CancelKind = 'before-work' | 'mid-output' | 'subprocess';

/** An answer smaller than this leaves no room to cancel "mid-output" without progress. */
const MID_OUTPUT_MIN_BYTES = 256 * 1024;
const RECOVERY_TIMEOUT_MS = 3000;
/** The watch for late output lasts as long as the call took alone, within these bounds (ms). */
const WATCH_MIN_MS = 1000;
const WATCH_MAX_MS = 8000;
/** A subprocess still alive this long after the cancellation did not stop (ms). */
const CHILD_GONE_MS = 2000;
/** The process sampler's period while no answer is owed (ms). */
const SAMPLE_MS = 600;

const CODES = ['cancel-ignored', 'slow-recovery', 'subprocess-blocked', 'server-exited'] as const;

function took(o: Observed): number {
  return o.noAnswer ? o.tool.timeoutMs : (o.latencyMs ?? 0);
}

function whyNoTool(kind: CancelKind, roles: Roles): string {
  if (kind === 'subprocess')
    return 'no selected tool started a subprocess in the calls stage; mark one "subprocess": true in pipescope.check.json if it does';
  const slowest = roles.quick.reduce<Observed | null>(
    (b, o) => ((o.latencyMs ?? 0) > (b?.latencyMs ?? -1) ? o : b),
    null,
  );
  const hint = slowest
    ? ` (the slowest, ${slowest.tool.name}, answered in ${duration(slowest.latencyMs)})`
    : '';
  return `no selected tool takes time${hint}: name one with --call/--args, or mark it "slow": true in pipescope.check.json`;
}

export async function cancelCase(
  ctx: BatteryContext,
  roles: Roles,
  kind: CancelKind,
): Promise<Verdict> {
  const o = kind === 'subprocess' ? roles.subprocess : roles.slow;
  if (!o) return skipped(whyNoTool(kind, roles));
  const name = o.tool.name;
  if (
    kind === 'mid-output' &&
    o.notifications === 0 &&
    (o.responseBytes ?? 0) < MID_OUTPUT_MIN_BYTES
  )
    return skipped(
      `${name} writes nothing before its answer (no notification, ${o.answered ? `a ${size(o.responseBytes)} answer` : 'no answer'}): there is no output to cancel in the middle of`,
    );
  const s = await ctx.open(`cancel-${kind}`);
  const hs = await s.handshake(ctx.callTimeoutMs);
  if (!hs.ok) {
    await s.stop();
    return failed(
      `the handshake failed: ${hs.why}`,
      s.findings(['handshake-failed', 'server-exited']),
    );
  }
  const notes = s.session.liveMetrics().notifications;
  const call = s.start(name, o.tool.args);
  const r = call.record;
  const waitMs = took(o) + 1000;
  // Output of the call: a notification (progress, a log line) or an answer half arrived.
  const begun = (): boolean => {
    const c = s.session.counters();
    const midFrame = c !== null && c.t > r.sentAt && c.pendingBytes > 0;
    return r.progressCount > 0 || s.session.liveMetrics().notifications > notes || midFrame;
  };
  if (kind === 'mid-output') {
    await s.waitFor(() => call.settled || begun(), waitMs, 10);
    if (call.settled || !begun()) {
      await s.stop();
      return skipped(
        `${name} ${call.settled ? 'answered' : 'wrote nothing'} before any output could be cancelled in its middle this time`,
      );
    }
  } else if (kind === 'subprocess') {
    await s.waitFor(() => call.settled || call.subprocesses().length > 0, waitMs, 20);
    if (call.subprocesses().length === 0) {
      await s.stop();
      return skipped(
        `no subprocess of ${name} was seen ${call.settled ? 'before it answered' : `within ${duration(waitMs)}`} this time`,
      );
    }
  }
  const cancelAt = s.now();
  const after = new AfterCancel(s.session, r);
  try {
    const sent = s.session.cancel(r.id, `pipescope check: cancel-${kind}`);
    if (!sent.ok) {
      await s.stop();
      return skipped(`${name} answered before the cancellation could be sent (${sent.error})`);
    }
    return await judge(s, o, kind, { call, cancelAt, after, notes });
  } finally {
    after.dispose();
  }
}

interface Cancelled {
  call: PendingCall;
  cancelAt: number;
  after: AfterCancel;
  /** Notifications before the call was sent. */
  notes: number;
}

/** After the cancellation: the recovery probe, the watch, the subprocesses, the verdict. */
async function judge(
  s: CheckSession,
  o: Observed,
  kind: CancelKind,
  c: Cancelled,
): Promise<Verdict> {
  const { call, cancelAt, after } = c;
  const r = call.record;
  const name = o.tool.name;
  const progressAtCancel = r.progressCount;
  const notesAtCancel = s.session.liveMetrics().notifications - c.notes;
  // The ping goes right behind the cancellation: the server reads them in that order.
  const rec = await s.session.recover(RECOVERY_TIMEOUT_MS);
  const watch = Math.min(WATCH_MAX_MS, Math.max(WATCH_MIN_MS, took(o) * 1.25 + 500));
  // The call's own findings (the recovery probe, timed out and answered late, has its own).
  const mine = (codes: readonly (typeof CODES)[number][]) =>
    s.findings(codes).filter((f) => f.requestId === undefined || f.requestId === r.id);
  // Ordered after the ping's answer when there was one; else by the engine's clock.
  const ignored = (): boolean =>
    after.pingAnswered ? after.wentOn : r.status === 'late' || mine(['cancel-ignored']).length > 0;
  const stillRunning = (): { pid: number; command: string }[] => {
    const now = s.childrenNow();
    return call.subprocesses().filter((p) => now.has(p.pid));
  };
  await s.waitFor(
    () => ignored() || (s.now() - cancelAt >= CHILD_GONE_MS && stillRunning().length > 0),
    Math.max(0, cancelAt + watch - s.now()),
    50,
  );
  // A subprocess is judged on a sample taken after CHILD_GONE_MS (they come every 500 ms).
  if (call.subprocesses().length > 0) {
    const judgeAt = cancelAt + CHILD_GONE_MS + SAMPLE_MS;
    await s.waitFor(() => ignored() || s.now() >= judgeAt, Math.max(0, judgeAt - s.now()), 50);
  }
  const wentOn = ignored();
  const left = s.now() - cancelAt >= CHILD_GONE_MS ? stillRunning() : [];
  const described = describeLeft(s, left);
  await s.stop();
  const found = mine(CODES);
  const evidence = {
    tool: name,
    cancelledAfterMs: Math.round(cancelAt - r.sentAt),
    progressBeforeCancel: progressAtCancel,
    notificationsBeforeCancel: notesAtCancel,
    progressAfterCancel: r.progressCount - progressAtCancel,
    pingAnsweredAfterCancel: after.pingAnswered,
    progressAfterPing: after.progressAfterPing,
    notificationsAfterPing: after.notifications,
    answer:
      r.status === 'late'
        ? after.answerAfterPing
          ? 'after the ping'
          : 'before the ping (crossed in flight)'
        : null,
    recovery: rec,
    watchedMs: Math.round(watch),
    subprocesses: call.subprocesses(),
    ...(left.length ? { stillRunning: described } : {}),
  };
  const problems: string[] = [];
  const cancelFindings = found.filter((f) => f.code === 'cancel-ignored');
  if (wentOn) {
    problems.push(
      after.words() ??
        (cancelFindings[0]
          ? brief(cancelFindings[0].message, 200)
          : `${name} was answered after its cancellation`),
    );
  }
  for (const f of found) if (f.code !== 'cancel-ignored') problems.push(brief(f.message, 200));
  if (left.length > 0)
    problems.push(
      `its subprocess${left.length > 1 ? 'es' : ''} kept running ${duration(s.now() - cancelAt)} after the cancellation: ${described.join('; ')}`,
    );
  if (!rec.ok && found.every((f) => f.code !== 'slow-recovery'))
    problems.push(
      `the recovery ${rec.method} got no answer within ${duration(RECOVERY_TIMEOUT_MS)}`,
    );
  const basis = wentOn ? found : found.filter((f) => f.code !== 'cancel-ignored');
  if (problems.length > 0) return failed(list(problems), basis, evidence);
  const what =
    kind === 'before-work'
      ? 'at once'
      : kind === 'mid-output'
        ? `once its output began (${notesAtCancel ? `${notesAtCancel} notification(s)` : 'part of its answer'})`
        : `while its subprocess ran (pid ${call
            .subprocesses()
            .map((p) => p.pid)
            .join(', ')})`;
  const crossed =
    r.status === 'late' || cancelFindings.length > 0
      ? '; what came meanwhile had crossed the cancellation in flight'
      : '';
  return passed(
    `${name} cancelled ${what}, ${duration(cancelAt - r.sentAt)} after it was sent: nothing more came in ` +
      `${duration(watch)}${call.subprocesses().length ? ', its subprocess ended' : ''}; ` +
      `${rec.method} answered in ${duration(rec.latencyMs)}${crossed}`,
    evidence,
  );
}

/** What each process still running is doing, from the newest sample. */
function describeLeft(s: CheckSession, left: { pid: number; command: string }[]): string[] {
  const snap = s.session.evidence.latest();
  return left.map((p) => {
    const sample = snap?.processes.find((q) => q.pid === p.pid);
    return sample ? describeProcess(sample) : `pid ${p.pid} (${p.command.slice(0, 60)})`;
  });
}
