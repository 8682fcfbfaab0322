/**
 * The calls stage: one server, the handshake, then each selected tool called once with the
 * reader draining, as a good host would. Its verdicts are `handshake`, `tool-calls` and
 * `result-contract`; what each call showed (latency, size, progress, subprocesses) picks the
 * tools the later cases use (plan.ts). Everything it waits for is bounded.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { LiveFinding } from '../../../shared/findings.js';
import { bytesWord } from '../../../shared/process.js';
import type { RequestRecord } from '../../../shared/requests.js';
import { SessionError } from '../session/types.js';
import type { CheckSession, Handshake } from './check-session.js';
import type { BatteryContext } from './context.js';
import { type Observed, type PlannedTool, unlisted } from './plan.js';
import { brief, duration, failed, list, passed, size, skipped, type Verdict } from './verdict.js';

export interface CallsStage {
  /** Why the server could not start (null: it did). */
  startError: string | null;
  handshake: Handshake | null;
  tools: Tool[];
  planned: PlannedTool[];
  notCalled: { name: string; why: string }[];
  observed: Observed[];
  records: RequestRecord[];
  cuts: (LiveFinding | null)[];
  /** Session-time windows (ms) of the stage's phases: where a polluting line was written. */
  phases: { label: string; from: number; to: number }[];
  session: CheckSession | null;
  /** Whether a ping after the calls answered (the baseline of the cases that ping later). */
  pingOk: boolean;
}

const PING_MS = 2000;

/** Runs the stage; `choose` turns the listed tools into the tools to call. */
export async function runCallsStage(
  ctx: BatteryContext,
  choose: (tools: readonly Tool[]) => {
    chosen: PlannedTool[];
    notCalled: { name: string; why: string }[];
  },
): Promise<CallsStage> {
  const out: CallsStage = {
    startError: null,
    handshake: null,
    tools: [],
    planned: [],
    notCalled: [],
    observed: [],
    records: [],
    cuts: [],
    phases: [],
    session: null,
    pingOk: false,
  };
  let s: CheckSession;
  try {
    s = await ctx.open('calls');
  } catch (e) {
    if (e instanceof SessionError) {
      out.startError = e.message;
      return out;
    }
    throw e;
  }
  out.session = s;
  const hs = await s.handshake(ctx.callTimeoutMs);
  out.handshake = hs;
  const initAnswered = s.session.requests.all().find((r) => r.method === 'initialize');
  const initAt =
    initAnswered?.latencyMs == null ? s.now() : initAnswered.sentAt + initAnswered.latencyMs;
  out.phases.push(
    { label: 'start-up', from: 0, to: initAt },
    { label: 'the handshake', from: initAt, to: s.now() },
  );
  if (!hs.ok) {
    await s.stop();
    return out;
  }
  out.tools = hs.tools;
  const { chosen, notCalled } = choose(hs.tools);
  out.planned = chosen;
  out.notCalled = notCalled;
  for (const tool of chosen) {
    const from = s.now();
    const notes = s.session.liveMetrics().notifications;
    const c = await s.call(tool.name, tool.args, tool.timeoutMs);
    out.phases.push({ label: `the call of ${tool.name}`, from, to: s.now() });
    out.records.push(c.record);
    out.cuts.push(c.cutBy);
    out.observed.push({
      tool,
      status: c.record.status,
      latencyMs: c.record.latencyMs,
      responseBytes: c.record.responseBytes,
      progress: c.record.progressCount,
      notifications: s.session.liveMetrics().notifications - notes,
      subprocesses: c.subprocesses,
      answered: c.record.status === 'completed',
      noAnswer: c.record.status === 'timed-out',
    });
    if (s.session.state !== 'running') break;
  }
  // The baseline for the cases that ping: does this server answer a ping at all, here?
  if (s.session.state === 'running')
    out.pingOk = (await s.request('ping', undefined, PING_MS)).status === 'completed';
  await s.stop();
  // The stop settles what the end shows (a late answer, audits of large answers).
  for (const [i, r] of out.records.entries()) {
    const o = out.observed[i];
    o.status = r.status;
    o.answered = r.status === 'completed';
  }
  return out;
}

export function handshakeVerdict(st: CallsStage): Verdict {
  if (st.startError) return failed(`the server could not start: ${st.startError}`);
  const hs = st.handshake;
  if (!hs) return failed('the handshake never ran');
  const found =
    st.session?.findings(['handshake-failed', 'server-exited', 'server-output-buffered']) ?? [];
  if (!hs.ok) {
    const first = found[0];
    return failed(first ? brief(first.message) : `the handshake failed: ${hs.why}`, found, {
      why: hs.why,
    });
  }
  const info = hs.init.serverInfo;
  return passed(
    `${info.name} ${info.version} (protocol ${hs.init.protocolVersion}) listed ${hs.tools.length} tool(s) in ${duration(hs.ms)}`,
    {
      serverInfo: info,
      protocolVersion: hs.init.protocolVersion,
      tools: hs.tools.length,
      ms: Math.round(hs.ms),
    },
  );
}

function callProblem(st: CallsStage, i: number): string | null {
  const r = st.records[i];
  const name = st.observed[i].tool.name;
  if (r.status === 'completed') return null;
  if (r.status === 'failed' && r.error && r.responseBytes !== null)
    return `${name} answered with error ${r.error.code}: ${brief(r.error.message, 160)}`;
  if (r.status === 'failed')
    return `${name} got no answer: ${brief(r.error?.message ?? 'failed', 160)}`;
  const cut = st.cuts[i];
  const late = r.status === 'late' ? ' (it came later)' : '';
  if (cut) return `${name} could not answer (${cut.code})${late}: ${brief(cut.message, 240)}`;
  const timeout = st.session?.session.findings
    .all()
    .find((f) => f.code === 'request-timed-out' && f.requestId === r.id);
  const why = timeout ? `; ${brief(timeout.message, 240)}` : '';
  return `${name} did not answer within ${duration(st.observed[i].tool.timeoutMs)}${late}${why}`;
}

export function toolCallsVerdict(st: CallsStage): Verdict {
  if (!st.handshake?.ok) return skipped('the handshake failed: no tool was called');
  const missing = unlisted(st.planned, st.tools);
  if (st.planned.length === 0) {
    const why = st.notCalled.length
      ? `the server lists ${st.tools.length} tool(s), none callable without arguments (${list(st.notCalled.slice(0, 4).map((n) => `${n.name}: ${n.why}`))})`
      : 'the server lists no tools';
    return skipped(`${why}; name tools with --call/--args or in pipescope.check.json`);
  }
  const problems = st.observed
    .map((_, i) => callProblem(st, i))
    .filter((p): p is string => p !== null);
  const evidence = {
    calls: st.observed.map((o) => ({
      tool: o.tool.name,
      status: o.status,
      latencyMs: o.latencyMs === null ? null : Math.round(o.latencyMs),
      responseBytes: o.responseBytes,
      progress: o.progress,
    })),
    ...(missing.length ? { notListed: missing } : {}),
  };
  const skippedCalls = st.planned.length - st.observed.length;
  if (skippedCalls > 0) problems.push(`the server stopped before ${skippedCalls} more call(s)`);
  if (problems.length > 0) {
    const found =
      st.session?.findings([
        'request-timed-out',
        'server-exited',
        'truncated-at-exit',
        'oversize-frame',
        ...st.cuts.flatMap((c) => (c ? [c.code] : [])),
      ]) ?? [];
    const notListed = missing.length ? ` (not in tools/list: ${missing.join(', ')})` : '';
    return failed(`${problems.join('; ')}${notListed}`, found, evidence);
  }
  const errs = st.records.filter((r) => r.audit?.isError).length;
  const slowest = st.observed.reduce((m, o) => Math.max(m, o.latencyMs ?? 0), 0);
  return passed(
    `${st.observed.length} call(s) answered, the slowest in ${duration(slowest)}` +
      (errs ? `; ${errs} with isError (the tool said it failed)` : ''),
    evidence,
  );
}

export function resultContractVerdict(st: CallsStage): Verdict {
  if (!st.handshake?.ok) return skipped('the handshake failed: no tool was called');
  const answered = st.records.filter((r) => r.audit !== undefined && r.responseBytes !== null);
  if (answered.length === 0) return skipped('no call was answered: there is no result to judge');
  const budget = st.session?.session.config.resultBudgetBytes ?? 0;
  const problems: string[] = [];
  const notes: string[] = [];
  const evidence: Record<string, unknown>[] = [];
  for (const r of answered) {
    const a = r.audit;
    if (!a) continue;
    const name = st.observed[st.records.indexOf(r)].tool.name;
    evidence.push({
      tool: name,
      bytes: a.bytes,
      incomplete: a.incomplete,
      base64: a.base64,
      isError: a.isError,
    });
    if (a.bytes > budget) {
      if (a.incomplete.length === 0)
        problems.push(
          `${name} answered ${bytesWord(a.bytes)}, over the ${bytesWord(budget)} result budget, and does not say it is incomplete (no truncated, no nextCursor)`,
        );
      else
        notes.push(
          `${name}: ${size(a.bytes)}, over budget but says it is incomplete (${a.incomplete.join(', ')})`,
        );
    }
    if (a.base64.count > 0)
      problems.push(
        `${name} carries ${a.base64.count} base64 payload(s) in text (${size(a.base64.bytes)}): a download belongs in a resource or image block, or behind a link`,
      );
  }
  const found = st.session?.findings(['result-over-budget']) ?? [];
  const largest = answered.reduce((m, r) => Math.max(m, r.responseBytes ?? 0), 0);
  if (problems.length > 0)
    return failed(problems.join('; '), found, { budgetBytes: budget, results: evidence });
  return passed(
    `${answered.length} answer(s) within the ${size(budget)} budget (largest ${size(largest)})` +
      (notes.length ? `; ${notes.join('; ')}` : ''),
    { budgetBytes: budget, results: evidence },
  );
}
