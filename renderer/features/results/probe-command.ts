/**
 * "Copy as `pipescope probe` command": the command line that runs a request of a session again,
 * headless, from a terminal. Pure: built from the session (SessionInfo: its argv, cwd, host
 * profile and limits) and the request's method and params as they went over the wire.
 *
 * Quoting is POSIX sh: a word of only safe characters stays bare, anything else goes inside
 * single quotes, where nothing expands (`$()`, backticks, `!`, newlines are all literal) and a
 * single quote is written `'\''`. The server's argv follows `--`, so the CLI never reads it as
 * its own options, and the shell never runs it: it stays the argv the session spawned
 * (HARDENING 17).
 */
import { profileSettings } from '../../../shared/host-profiles';
import type { SessionInfo } from '../../../shared/session-info';
import { SESSION_DEFAULTS } from '../../../shared/session-options';

/** How the command starts: the published CLI, run through npx. */
export const PROBE_PREFIX = 'npx pipescope probe';

/** Characters no POSIX shell gives a meaning to inside an argument word. */
const SAFE_WORD = /^[A-Za-z0-9_\-+=.,/:@%]+$/;

/** One shell word that the shell reads back as exactly `s`. */
export function shellWord(s: string): string {
  if (SAFE_WORD.test(s)) return s;
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** What of the session the command carries over. */
export type ProbeSession = Pick<
  SessionInfo,
  | 'command'
  | 'args'
  | 'cwd'
  | 'envNames'
  | 'hostProfile'
  | 'maxFrameBytes'
  | 'onOversize'
  | 'resultBudgetBytes'
  | 'readerMode'
  | 'consumerDelayMs'
>;

export interface ProbeCommandInput {
  session: ProbeSession;
  method: string;
  /** The request's `params` as sent; undefined when the request line could not be read. */
  params: unknown;
}

export type ProbeCommand =
  | {
      ok: true;
      text: string /** What the command does not carry over, in words. */;
      notes: string[];
    }
  | { ok: false; reason: string };

/** Methods `pipescope probe` sends by itself on any run: a plain probe reproduces them. */
const PROBE_METHODS = new Set(['initialize', 'tools/list']);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The tool call's own options, or why there are none. */
function callWords(params: unknown): string[] | string {
  if (params === undefined) return 'the request line is not available to read its arguments';
  const p = isObject(params) ? params : null;
  if (!p || typeof p.name !== 'string') return 'the request has no tool name (params.name)';
  if (p.arguments !== undefined && !isObject(p.arguments)) {
    return 'its arguments are not a JSON object, which --args needs';
  }
  // A name starting with "-" would read as an option: give it in the same word.
  const out = p.name.startsWith('-')
    ? [shellWord(`--call=${p.name}`)]
    : ['--call', shellWord(p.name)];
  if (p.arguments !== undefined) out.push('--args', shellWord(JSON.stringify(p.arguments)));
  return out;
}

/**
 * The session's settings that differ from what the probe would use anyway (its defaults under
 * the host profile, as `--host` applies them), as flags.
 */
function settingWords(s: ProbeSession): string[] {
  const base = { ...SESSION_DEFAULTS, ...(s.hostProfile ? profileSettings(s.hostProfile) : {}) };
  const out: string[] = [];
  if (s.hostProfile) out.push('--host', shellWord(s.hostProfile));
  if (s.maxFrameBytes !== base.maxFrameBytes)
    out.push('--max-frame-bytes', String(s.maxFrameBytes));
  if (s.onOversize !== base.onOversize) out.push('--on-oversize', shellWord(s.onOversize));
  if (s.resultBudgetBytes !== base.resultBudgetBytes) {
    out.push('--result-budget-bytes', String(s.resultBudgetBytes));
  }
  if (s.readerMode !== SESSION_DEFAULTS.readerMode) out.push('--reader', shellWord(s.readerMode));
  if (s.consumerDelayMs !== SESSION_DEFAULTS.consumerDelayMs) {
    out.push('--consumer-delay-ms', String(s.consumerDelayMs));
  }
  return out;
}

/**
 * The command for one request, or null when no probe command reproduces it (a method the probe
 * does not send): the caller hides the button then.
 */
export function probeCommand(input: ProbeCommandInput): ProbeCommand | null {
  const s = input.session;
  const words: string[] = [PROBE_PREFIX];
  if (input.method === 'tools/call') {
    const call = callWords(input.params);
    if (typeof call === 'string') return { ok: false, reason: call };
    words.push(...call);
  } else if (!PROBE_METHODS.has(input.method)) {
    return null;
  }
  words.push(...settingWords(s), '--', ...[s.command, ...s.args].map(shellWord));
  let text = words.join(' ');
  // The CLI has no --cwd: run it from the session's directory.
  if (s.cwd) text = `cd ${shellWord(s.cwd)} && ${text}`;
  const notes: string[] = [];
  if (s.envNames.length > 0) {
    notes.push(
      `Not included: the environment (${s.envNames.join(', ')}); its values stay in the host, set them before running.`,
    );
  }
  if (s.readerMode !== SESSION_DEFAULTS.readerMode || s.consumerDelayMs > 0) {
    notes.push('The reader mode and consumer delay are the session’s as they are now.');
  }
  if (input.method !== 'tools/call') {
    notes.push(`A probe sends ${[...PROBE_METHODS].join(' and ')} on every run.`);
  }
  return { ok: true, text, notes };
}
