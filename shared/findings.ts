/**
 * Finding codes: stable names for what Pipescope sees on the pipe (DESIGN.md table).
 * Codes and levels are a public contract; more codes may be added at `info` or `warn`.
 */

import type { FindingEvidence } from './process.js';

export type FindingLevel = 'info' | 'warn' | 'error';

export const FINDING_LEVELS = {
  'stdout-pollution': 'error',
  'oversize-frame': 'error',
  'truncated-at-exit': 'error',
  'server-exited': 'error',
  'server-write-blocked': 'error',
  'host-queue-stalled': 'warn',
  'stdin-blocked': 'error',
  'cancel-ignored': 'warn',
  'slow-recovery': 'warn',
  'request-timed-out': 'error',
  'handshake-failed': 'error',
  'server-output-buffered': 'error',
  'subprocess-blocked': 'error',
  'host-not-reading': 'error',
  'server-busy': 'warn',
  'result-over-budget': 'warn',
  // Added codes (info/warn only, as the contract allows).
  'dispatch-overflow': 'warn',
  'stderr-dropped': 'info',
  'unexpected-response': 'warn',
  'invalid-message': 'warn',
  'progress-anomaly': 'warn',
  'processes-left': 'warn',
} as const satisfies Record<string, FindingLevel>;

export type FindingCode = keyof typeof FINDING_LEVELS;

export interface Finding {
  code: FindingCode;
  level: FindingLevel;
  message: string;
  /** What the finding rests on (process findings: pid, command, state, wchan, syscall,
   *  cpuPercent, ms — DESIGN.md). */
  evidence?: FindingEvidence;
}

/**
 * One number a finding rests on, with the moment it was taken: the value when the finding was
 * raised, or the highest seen while its condition held (a live counter beside it may be far
 * past the first, and both are true).
 */
export interface FindingFigure {
  /** What it measures, in words ("queue depth"). */
  label: string;
  value: number;
  unit: 'ms' | 'bytes' | 'count';
  /** `raised`: when the episode began; `peak`: the highest while it held. */
  at: 'raised' | 'peak';
  /** ms since session start when it was taken. */
  t: number;
}

/** A finding as the engine tracks it live: first/last time seen and how often. */
export interface LiveFinding extends Finding {
  /** ms since session start when first raised. */
  firstAt: number;
  lastAt: number;
  count: number;
  requestId?: string | number;
  /** For a condition that holds over time: whether it still does (absent: an event). */
  active?: boolean;
  /** A condition's latest episode: when it began (firstAt is the first episode's). */
  since?: number;
  /** When the latest episode ended (absent while it holds, and for events). */
  resolvedAt?: number;
  /** Why it ended: the condition stopped holding, or the session ended first. */
  resolvedBy?: 'condition' | 'session-end';
  /** The numbers behind the message, each with its moment (raised, peak). */
  figures?: FindingFigure[];
}

/** Where a finding stands: a condition that holds now, one that held and ended, or an event
 *  (something that happened: pollution, a late answer, a timeout). */
export type FindingState = 'active' | 'resolved' | 'event';

export function findingState(f: Pick<LiveFinding, 'active'>): FindingState {
  return f.active === true ? 'active' : f.active === false ? 'resolved' : 'event';
}

/**
 * Findings as a report lists them: one per code, in order of first appearance, with the first
 * one's message and every episode of that code counted in (`(n times)`), naming the requests
 * when they were several (the message names only the first). `all`: each finding (one per
 * code, or per code and request) as last seen, oldest first.
 */
export function foldByCode(
  all: readonly (Finding & { count: number; requestId?: string | number })[],
): Finding[] {
  const byCode = new Map<FindingCode, { f: Finding; n: number; requests: string[] }>();
  for (const f of all) {
    let e = byCode.get(f.code);
    if (e) e.n += f.count;
    else {
      e = { f, n: f.count, requests: [] };
      byCode.set(f.code, e);
    }
    if (f.requestId !== undefined) e.requests.push(String(f.requestId));
  }
  return [...byCode.values()].map(({ f, n, requests }) => {
    const listed = requests.slice(0, FOLD_REQUESTS_NAMED).join(', ');
    const more = requests.length > FOLD_REQUESTS_NAMED ? ', …' : '';
    const which = requests.length > 1 ? `, requests ${listed}${more}` : '';
    return {
      code: f.code,
      level: f.level,
      message: n > 1 ? `${f.message} (${n} times${which})` : f.message,
      ...(f.evidence === undefined ? {} : { evidence: f.evidence }),
    };
  });
}

const FOLD_REQUESTS_NAMED = 5;

/** Plain-words explanation of each code, for humans (CLI report, app findings panel). */
export const FINDING_EXPLANATIONS: Record<FindingCode, string> = {
  'stdout-pollution':
    'Something other than JSON-RPC was written to stdout (a banner, a console.log, garbage). ' +
    'Logs belong on stderr; a strict host may drop the session.',
  'oversize-frame':
    'A message grew past the transport limit before its newline arrived. The framer discarded it ' +
    '(or ended the session) without ever parsing it. Keep results small: page them.',
  'truncated-at-exit':
    'The server exited while a message was half written; those bytes can never be delivered.',
  'server-exited': 'The server process ended before the session did.',
  'server-write-blocked':
    'The server is alive and owes a response, but stdout stopped (mid-frame or quiet) while the ' +
    'host was not reading: the server is stuck in write() and cannot read stdin either.',
  'host-queue-stalled':
    'Bytes keep arriving but complete messages wait for the consumer: the host queue, not the ' +
    'pipe, is the bottleneck.',
  'stdin-blocked':
    'Writes to the server stdin waited for the pipe to drain: the server is not reading its input ' +
    '(cancellations and new requests cannot reach it).',
  'cancel-ignored':
    'After notifications/cancelled the server kept producing for the request or answered it late.',
  'slow-recovery':
    'The small probe sent after a cancellation was slow or failed: the session did not recover.',
  'request-timed-out':
    'A request passed its timeout; a cancellation was sent (never for initialize). A timeout in a ' +
    'UI is not a cancellation.',
  'handshake-failed':
    'initialize failed: answered with an error, timed out, or never answered. Nothing else can ' +
    'work; a probe or check that cannot initialize is never a pass.',
  'server-output-buffered':
    'An answer is owed and stdout is silent while the server sits idle (waiting for its next ' +
    'request, no CPU), or the answer arrived only when stdin closed or the server exited: its ' +
    'stdout is block-buffered. Python: `-u` or `print(..., flush=True)`; C: `setvbuf`/`fflush`.',
  'subprocess-blocked':
    'A process under the server is blocked writing a full pipe that the server no longer reads, ' +
    'while an answer is owed: the child waits for the server and the server for the child. ' +
    "Drain a child's output to its end (or to a bounded buffer) while waiting for it.",
  'host-not-reading':
    "Seen by tap and attach: the host stopped reading the server's stdout. Writes towards the " +
    'host waited past the budget, or the server is blocked writing a pipe whose reader is the ' +
    'host. The server is not at fault: the host must drain stdout while its agent works.',
  'server-busy':
    'An answer is owed and the server is on CPU with no output: a CPU-bound tool. A cancellation ' +
    'reaches it only if it checks; run heavy work off the thread that reads stdin.',
  'result-over-budget':
    "A tool result is larger than the result budget or a host profile's limit: some hosts " +
    'refuse it, close the connection or cut it. Page large results (`nextCursor`), say what was ' +
    'left out (`truncated`), keep downloads out of `content`, and do not send text twice.',
  'dispatch-overflow':
    'The consumer fell so far behind that the overload policy dropped or paused input (counted).',
  'stderr-dropped':
    'stderr outran its bounded ring; the oldest lines were dropped (still counted).',
  'unexpected-response': 'A response arrived for an id the host never sent (or sent twice).',
  'invalid-message': 'A JSON line on stdout that is not a JSON-RPC 2.0 message.',
  'progress-anomaly':
    'Progress notifications that do not increase, use an unknown token or arrive after completion.',
  'processes-left':
    'Processes of the server outlived the stop: in its process group after SIGKILL, or outside ' +
    'it (setsid, a double fork) still holding its stdio. Pipescope names them and kills what it ' +
    'can; a server should stop its children when its stdin closes.',
};

export function findingLevel(code: FindingCode): FindingLevel {
  return FINDING_LEVELS[code];
}
