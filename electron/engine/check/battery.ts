/**
 * `pipescope check`'s battery (docs/check.md): the calls stage, then one server per case for
 * the hostile-host cases, then the verdicts judged across every session of the run (stdout
 * pollution, buffered output, processes left behind). Every case runs inside its own budget:
 * at its deadline the case fails and its sessions are stopped through the ladder, so a check
 * ends whatever the server does, and leaves no process behind.
 *
 * Owns: the sessions of the run (each stopped by the case that opened it, or by the runner).
 * Fed by: the CLI (CheckOptions). Listens: nothing; returns the CheckReport.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  CHECK_CASE_IDS,
  CHECK_CASE_TITLES,
  type CheckCase,
  type CheckCaseId,
  type CheckReport,
  type CheckTool,
  summarize,
} from '../../../shared/check-report.js';
import { DEFAULT_STOP_GRACE_MS } from '../../../shared/session-options.js';
import { SessionError } from '../session/types.js';
import {
  type CallsStage,
  handshakeVerdict,
  resultContractVerdict,
  runCallsStage,
  toolCallsVerdict,
} from './calls-stage.js';
import { cancelCase } from './cancel-cases.js';
import { CheckSession, type CheckTarget } from './check-session.js';
import type { BatteryContext, LabelledSession } from './context.js';
import { bufferedVerdict, leftBehind, stdoutCleanVerdict } from './cross-session.js';
import { pausedHostCase, stderrSlowAndShutdown, stdinWhileWritingCase } from './host-cases.js';
import {
  defaultTools,
  MAX_DEFAULT_TOOLS,
  type PlannedTool,
  pickRoles,
  type Roles,
} from './plan.js';
import { duration, failed, skipped, type Verdict } from './verdict.js';

export interface CheckOptions {
  target: CheckTarget;
  /** The tools a person named (CLI or config); null: the default selection. */
  tools: PlannedTool[] | null;
  callTimeoutMs: number;
  pauseMs: number;
}

const LADDER_MS =
  DEFAULT_STOP_GRACE_MS.afterStdinClose +
  DEFAULT_STOP_GRACE_MS.afterSigterm +
  DEFAULT_STOP_GRACE_MS.afterSigkill;
/** Every case's budget beyond its own waits: the stop ladder, a loaded machine. */
const CASE_OVERHEAD_MS = LADDER_MS + 5000;

export async function runCheck(o: CheckOptions): Promise<CheckReport> {
  const startedAt = new Date();
  const t0 = Date.now();
  const all: LabelledSession[] = [];
  const verdicts = new Map<CheckCaseId, { v: Verdict; ms: number }>();
  const run = async (
    id: CheckCaseId,
    budgetMs: number,
    fn: (ctx: BatteryContext) => Promise<Verdict>,
  ) => {
    const t = Date.now();
    // Each case's own waits, plus the handshake's two steps.
    const v = await runCase(o, id, budgetMs + 2 * o.callTimeoutMs, all, fn);
    verdicts.set(id, { v, ms: Date.now() - t });
  };

  let stage: CallsStage | null = null;
  const sumCalls = (o.tools ?? []).reduce((n, t) => n + t.timeoutMs, 0);
  // The default selection is known only after tools/list: its calls are bounded per call.
  const callsBudget =
    CASE_OVERHEAD_MS + (o.tools ? sumCalls : MAX_DEFAULT_TOOLS * o.callTimeoutMs) + 2000;
  await run('tool-calls', callsBudget, async (ctx) => {
    stage = await runCallsStage(ctx, (tools: readonly Tool[]) => choose(o, tools));
    return toolCallsVerdict(stage);
  });
  const st = stage as CallsStage | null;
  const started = st !== null && st.handshake?.ok === true;
  if (st) {
    const hs = st.handshake;
    verdicts.set('handshake', { v: handshakeVerdict(st), ms: hs?.ok ? Math.round(hs.ms) : 0 });
    verdicts.set('result-contract', { v: resultContractVerdict(st), ms: 0 });
  } else verdicts.set('handshake', { v: failed('the calls stage did not finish'), ms: 0 });

  const roles = pickRoles(st?.observed ?? [], st?.pingOk ?? false);
  if (started) {
    const shutdown = await runHostCases(o, roles, run);
    verdicts.set('shutdown', shutdown);
  }
  const skipWhy = skipped('the handshake failed in the calls stage: nothing else can run');
  for (const id of CHECK_CASE_IDS)
    if (!verdicts.has(id) && !CROSS.includes(id)) verdicts.set(id, { v: skipWhy, ms: 0 });

  verdicts.set('stdout-clean', { v: stdoutCleanVerdict(all, st, started), ms: 0 });
  verdicts.set('buffered-output', { v: bufferedVerdict(all, started), ms: 0 });
  const shut = verdicts.get('shutdown');
  if (shut) verdicts.set('shutdown', { v: leftBehind(shut.v, all), ms: shut.ms });

  const cases: CheckCase[] = CHECK_CASE_IDS.map((id) => {
    const { v, ms } = verdicts.get(id) ?? { v: skipWhy, ms: 0 };
    return { id, title: CHECK_CASE_TITLES[id], ...v, durationMs: ms };
  });
  const summary = summarize(cases);
  const init = st?.handshake?.ok ? st.handshake.init : null;
  return {
    format: 'pipescope-check',
    version: 1,
    server: { command: o.target.command, args: [...o.target.args] },
    startedAt: startedAt.toISOString(),
    durationMs: Date.now() - t0,
    serverInfo: init
      ? {
          name: init.serverInfo.name,
          version: init.serverInfo.version,
          protocolVersion: init.protocolVersion,
        }
      : null,
    tools: toolsOf(st, roles),
    notCalled: st?.notCalled ?? [],
    cases,
    runs: all.map(({ caseId, session: { session } }) => ({
      case: caseId,
      pid: session.pid,
      exit: session.exit ? { code: session.exit.code, signal: session.exit.signal } : null,
    })),
    summary,
    exitCode: summary.failed > 0 ? 1 : 0,
  };
}

/** Judged across every session at the end, not run on their own. */
const CROSS: readonly CheckCaseId[] = ['stdout-clean', 'buffered-output'];

async function runHostCases(
  o: CheckOptions,
  roles: Roles,
  run: (
    id: CheckCaseId,
    budgetMs: number,
    fn: (ctx: BatteryContext) => Promise<Verdict>,
  ) => Promise<void>,
): Promise<{ v: Verdict; ms: number }> {
  const quick = roles.quick.reduce((n, q) => n + q.tool.timeoutMs, 0);
  const slowest = Math.max(
    o.callTimeoutMs,
    roles.slow?.tool.timeoutMs ?? 0,
    roles.subprocess?.tool.timeoutMs ?? 0,
  );
  const cancelBudget = CASE_OVERHEAD_MS + 2 * slowest + 16_000;
  let shutdown: { v: Verdict; ms: number } | null = null;
  await run('stderr-slow', CASE_OVERHEAD_MS + quick + 4000, async (ctx) => {
    const r = await stderrSlowAndShutdown(ctx, roles);
    shutdown = { v: r.shutdown, ms: r.stopMs };
    return r.stderr;
  });
  await run('paused-host', CASE_OVERHEAD_MS + o.pauseMs + 2 * o.callTimeoutMs, (ctx) =>
    pausedHostCase(ctx, roles),
  );
  await run('cancel-before-work', cancelBudget, (ctx) => cancelCase(ctx, roles, 'before-work'));
  await run('cancel-mid-output', cancelBudget, (ctx) => cancelCase(ctx, roles, 'mid-output'));
  await run('cancel-subprocess', cancelBudget, (ctx) => cancelCase(ctx, roles, 'subprocess'));
  await run('stdin-while-writing', CASE_OVERHEAD_MS + 2 * slowest + 5000, (ctx) =>
    stdinWhileWritingCase(ctx, roles),
  );
  // Judged as the stderr-slow server stopped (null: that case ended at its deadline first).
  const judged = shutdown as { v: Verdict; ms: number } | null;
  return (
    judged ?? { v: skipped('the stderr-slow case, whose server it judges, did not finish'), ms: 0 }
  );
}

/** The tools to call: the ones named (in order), else the default selection. */
function choose(
  o: CheckOptions,
  tools: readonly Tool[],
): { chosen: PlannedTool[]; notCalled: { name: string; why: string }[] } {
  if (o.tools) {
    const named = new Set(o.tools.map((t) => t.name));
    return {
      chosen: o.tools,
      notCalled: tools
        .filter((t) => !named.has(t.name))
        .map((t) => ({ name: t.name, why: 'not named' })),
    };
  }
  return defaultTools(tools, o.callTimeoutMs);
}

/** Runs one case within `budgetMs`; whatever happens, its sessions are stopped before it ends. */
async function runCase(
  o: CheckOptions,
  id: CheckCaseId,
  budgetMs: number,
  all: LabelledSession[],
  fn: (ctx: BatteryContext) => Promise<Verdict>,
): Promise<Verdict> {
  const mine: CheckSession[] = [];
  let closed = false;
  const ctx: BatteryContext = {
    target: o.target,
    callTimeoutMs: o.callTimeoutMs,
    pauseMs: o.pauseMs,
    open: async (label) => {
      if (closed) throw new Error('the case has ended');
      const s = new CheckSession(o.target, label);
      mine.push(s);
      all.push({ caseId: id, session: s });
      await s.session.whenStarted();
      return s;
    },
  };
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<Verdict>((resolve) => {
    timer = setTimeout(
      () => resolve(failed(`the case did not end within its budget of ${duration(budgetMs)}`)),
      budgetMs,
    );
  });
  const work = fn(ctx).catch((e: unknown) =>
    e instanceof SessionError
      ? failed(`the server could not start: ${e.message}`)
      : failed(`pipescope error: ${(e as Error).message}`),
  );
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
    closed = true;
    await Promise.all(mine.map((s) => s.stop()));
  }
}

function toolsOf(st: CallsStage | null, roles: Roles): CheckTool[] {
  if (!st) return [];
  return st.planned.map((tool) => {
    const ob = st.observed.find((x) => x.tool === tool);
    const rolesOf = (['largest', 'slow', 'subprocess'] as const).filter(
      (k) => roles[k]?.tool === tool,
    );
    return {
      name: tool.name,
      args: tool.args,
      source: tool.source,
      timeoutMs: tool.timeoutMs,
      status: ob?.status ?? null,
      latencyMs: ob?.latencyMs == null ? null : Math.round(ob.latencyMs),
      responseBytes: ob?.responseBytes ?? null,
      progress: ob?.progress ?? 0,
      subprocesses: ob?.subprocesses ?? [],
      roles: [...rolesOf],
    };
  });
}
