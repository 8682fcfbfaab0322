/**
 * Which tools the battery calls and what each case uses them for. The tools come from
 * `--call/--args` pairs, the config file, or by default every listed tool whose input schema
 * has no required parameter (and that does not declare itself destructive). What each tool
 * showed in the calls stage then picks the roles: the largest answer (paused-host,
 * stdin-while-writing), the slow one (the cancellations), the one that starts a subprocess
 * (cancel-subprocess), and the quick ones (stderr-slow, shutdown). Pure: no session here.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CheckToolSource } from '../../../shared/check-report.js';

export interface PlannedTool {
  name: string;
  args: Record<string, unknown>;
  source: CheckToolSource;
  timeoutMs: number;
  /** Named as the slow tool / the subprocess tool (config), not measured. */
  slow?: boolean;
  subprocess?: boolean;
}

/** What a tool's call in the calls stage showed. */
export interface Observed {
  tool: PlannedTool;
  status: string;
  /** ms to its answer; null: none came (timed out, failed). */
  latencyMs: number | null;
  responseBytes: number | null;
  progress: number;
  /** Notifications of any kind (progress, log messages) that came while it was owed. */
  notifications: number;
  subprocesses: { pid: number; command: string }[];
  /** Answered with a result (`isError` results included). */
  answered: boolean;
  /** No answer within its budget while the server stayed up (timed out, cut by a finding). */
  noAnswer: boolean;
}

/** A call this long (ms) is a tool that takes time: long enough to cancel in its middle. */
export const SLOW_MS = 500;
/** Calls this quick (ms) are repeated under slow stderr and before the shutdown. */
export const QUICK_MS = 2000;

export interface Roles {
  largest: Observed | null;
  slow: Observed | null;
  subprocess: Observed | null;
  quick: Observed[];
  /** A ping after the calls stage's calls answered (the baseline of later pings). */
  pingOk: boolean;
}

/** The default selection calls at most this many tools (its stage's budget is bounded by it). */
export const MAX_DEFAULT_TOOLS = 32;

/** The default selection: every tool with no required parameter, called with `{}`. */
export function defaultTools(
  tools: readonly Tool[],
  timeoutMs: number,
): { chosen: PlannedTool[]; notCalled: { name: string; why: string }[] } {
  const chosen: PlannedTool[] = [];
  const notCalled: { name: string; why: string }[] = [];
  for (const t of tools) {
    const required = t.inputSchema.required ?? [];
    if (required.length > 0) {
      const names = required.map((r) => JSON.stringify(r)).join(', ');
      notCalled.push({
        name: t.name,
        why: `required parameter${required.length > 1 ? 's' : ''} ${names}`,
      });
    } else if (t.annotations?.destructiveHint === true && t.annotations.readOnlyHint !== true) {
      notCalled.push({ name: t.name, why: 'declares itself destructive (destructiveHint)' });
    } else if (chosen.length >= MAX_DEFAULT_TOOLS) {
      notCalled.push({
        name: t.name,
        why: `over the ${MAX_DEFAULT_TOOLS} tools the default selection calls`,
      });
    } else chosen.push({ name: t.name, args: {}, source: 'default', timeoutMs });
  }
  return { chosen, notCalled };
}

/** Tools named but not listed by the server (a typo, or a tool behind a flag). */
export function unlisted(planned: readonly PlannedTool[], tools: readonly Tool[]): string[] {
  const listed = new Set(tools.map((t) => t.name));
  return [...new Set(planned.filter((p) => !listed.has(p.name)).map((p) => p.name))];
}

export function pickRoles(observed: readonly Observed[], pingOk = true): Roles {
  const answered = observed.filter((o) => o.answered);
  const largest = answered.reduce<Observed | null>(
    (best, o) => ((o.responseBytes ?? 0) > (best?.responseBytes ?? -1) ? o : best),
    null,
  );
  const took = (o: Observed): number => (o.noAnswer ? o.tool.timeoutMs : (o.latencyMs ?? 0));
  const candidates = observed.filter((o) => o.answered || o.noAnswer);
  const named = observed.find((o) => o.tool.slow === true) ?? null;
  const slowest = candidates.reduce<Observed | null>(
    (best, o) => (took(o) > (best ? took(best) : -1) ? o : best),
    null,
  );
  const slow = named ?? (slowest && took(slowest) >= SLOW_MS ? slowest : null);
  const subprocess =
    observed.find((o) => o.tool.subprocess === true) ??
    (slow && slow.subprocesses.length > 0 ? slow : null) ??
    candidates.find((o) => o.subprocesses.length > 0) ??
    null;
  const quick = answered.filter((o) => (o.latencyMs ?? 0) <= QUICK_MS);
  return { largest, slow, subprocess, quick, pingOk };
}
