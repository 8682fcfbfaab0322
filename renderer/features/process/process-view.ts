/**
 * What the process panel shows, pure: rows of the sampled tree (root first, depth-first, as
 * the engine sends them) with the activity in words (shared/process.ts, the same words the
 * CLI and the findings use), each stdio fd and who holds its other end, and the findings
 * whose evidence names the process. Memoized on its inputs: the panel re-renders at the
 * snapshot rate, a new sample comes at 2-10 Hz.
 */
import type { FindingCode, FindingLevel, LiveFinding } from '../../../shared/findings';
import {
  type ActivityKind,
  bytesWord,
  describeActivity,
  type FindingEvidence,
  fdWord,
  type ProcessAvailability,
  type ProcessSnapshot,
  type StdioEnd,
} from '../../../shared/process';

export interface StdioView {
  fd: 0 | 1 | 2;
  /** stdin, stdout, stderr. */
  name: string;
  /** `pipe:[123]`, a path, or "closed". */
  target: string;
  /** Who holds the other end, in words ("4242 node pipescope: the host reads it"), or null. */
  peer: string | null;
  nonBlocking: boolean | null;
}

/** Adjacent fds whose other end the same process holds, shown once with that peer. */
export interface StdioGroup {
  ends: StdioView[];
  peer: string | null;
}

export interface ProcessRow {
  pid: number;
  depth: number;
  command: string;
  state: string;
  stateWord: string;
  kind: ActivityKind;
  activity: string;
  /** In the same call for half a second or more (a write, a read, a wait). */
  stuck: boolean;
  cpuPercent: number | null;
  writeRate: number | null;
  threads: number;
  stdio: StdioView[];
  stdioGroups: StdioGroup[];
  /** Codes of the findings whose evidence is this process, errors first. */
  findings: FindingCode[];
  /** The worst level among them (null: no finding names it). */
  evidenceLevel: FindingLevel | null;
}

const STATE_WORDS: Record<string, string> = {
  R: 'running',
  S: 'sleeping',
  D: 'disk wait',
  T: 'stopped',
  t: 'traced',
  Z: 'zombie',
  X: 'dead',
  I: 'idle',
  W: 'paging',
  P: 'parked',
};

/** The kernel's state letter in a word (ps(1)'s names). */
export function stateWord(letter: string): string {
  return STATE_WORDS[letter] ?? 'unknown';
}

const FD_NAMES = ['stdin', 'stdout', 'stderr'] as const;

export function stdioView(end: StdioEnd): StdioView {
  const peer = end.peer
    ? `${end.peer.pid} ${shortCommand(end.peer.command, 40)}${end.peer.note ? ` (${end.peer.note})` : ''}`
    : null;
  return {
    fd: end.fd,
    name: FD_NAMES[end.fd],
    target: end.target === null ? 'closed or unreadable' : fdWord(null, end.target),
    peer,
    nonBlocking: end.nonBlocking,
  };
}

/** The fds in order, adjacent ones with the same peer together (0, 1, 2 all to the host). */
export function stdioGroups(ends: readonly StdioView[]): StdioGroup[] {
  const groups: StdioGroup[] = [];
  for (const e of ends) {
    const last = groups.at(-1);
    if (last && last.peer !== null && last.peer === e.peer) last.ends.push(e);
    else groups.push({ ends: [e], peer: e.peer });
  }
  return groups;
}

/**
 * A command line as a row shows it: the program by its name, long absolute paths by their
 * last two parts (`node …/demo-servers/oversized-result.js`); the full line is the title.
 */
export function compactCommand(command: string): string {
  return command
    .split(' ')
    .map((word, i) => {
      if (!word.startsWith('/')) return word;
      const parts = word.split('/').filter(Boolean);
      if (i === 0) return parts.at(-1) ?? word;
      return parts.length > 2 ? `…/${parts.slice(-2).join('/')}` : word;
    })
    .join(' ');
}

/** A command line cut to `max` characters (an ellipsis marks the cut). */
export function shortCommand(command: string, max = 80): string {
  return command.length <= max ? command : `${command.slice(0, max - 1)}…`;
}

const LEVEL_RANK: Record<FindingLevel, number> = { error: 0, warn: 1, info: 2 };

/** Findings by the pid their evidence names, the worst first; a condition that no longer held
 *  when the sample shown was taken (`at`: resolved before it) marks nothing. The last sample of
 *  a session that ended keeps its marks: the condition ended with the session, after it. */
export function findingsByPid(
  findings: readonly LiveFinding[],
  at = Number.POSITIVE_INFINITY,
): Map<number, LiveFinding[]> {
  const out = new Map<number, LiveFinding[]>();
  for (const f of findings) {
    if (f.active === false && (f.resolvedAt === undefined || f.resolvedAt < at)) continue;
    const pid = f.evidence?.pid;
    if (typeof pid !== 'number') continue;
    const list = out.get(pid) ?? [];
    if (!list.some((g) => g.code === f.code)) list.push(f);
    out.set(pid, list);
  }
  for (const list of out.values()) list.sort((a, b) => LEVEL_RANK[a.level] - LEVEL_RANK[b.level]);
  return out;
}

export function processRows(
  snapshot: ProcessSnapshot | null,
  findings: readonly LiveFinding[],
): ProcessRow[] {
  if (!snapshot) return [];
  const named = findingsByPid(findings, snapshot.t);
  return snapshot.processes.map((p) => {
    const mine = named.get(p.pid) ?? [];
    const forMs = p.activity.forMs;
    const stdio = p.stdio.map(stdioView);
    return {
      pid: p.pid,
      depth: p.depth,
      command: p.command,
      state: p.state,
      stateWord: stateWord(p.state),
      kind: p.activity.kind,
      activity: describeActivity(p.activity, p.cpuPercent),
      stuck:
        forMs !== null &&
        forMs >= 500 &&
        (p.activity.kind === 'writing' ||
          p.activity.kind === 'reading' ||
          p.activity.kind === 'waiting-child'),
      cpuPercent: p.cpuPercent,
      writeRate: p.writeRate,
      threads: p.threadCount,
      stdio,
      stdioGroups: stdioGroups(stdio),
      findings: mine.map((f) => f.code),
      evidenceLevel: mine[0]?.level ?? null,
    };
  });
}

/** processRows, recomputed only when the sample or the findings array changed. */
export function memoProcessRows(): typeof processRows {
  let lastSnapshot: ProcessSnapshot | null | undefined;
  let lastFindings: readonly LiveFinding[] | undefined;
  let last: ProcessRow[] = [];
  return (snapshot, findings) => {
    if (snapshot !== lastSnapshot || findings !== lastFindings) {
      last = processRows(snapshot, findings);
      lastSnapshot = snapshot;
      lastFindings = findings;
    }
    return last;
  };
}

/** Why there is nothing to show, in words; null when samples can come. */
export function unavailableText(p: ProcessAvailability, isTrace: boolean): string | null {
  if (p.available) return null;
  const why = p.reason ?? 'no reason given';
  return isTrace
    ? `This trace has no process evidence: ${why}.`
    : `Process evidence is not available on this platform: ${why}.`;
}

/** A finding's evidence in one short line: "pid 4242 · write(1, 65,536 B) · 3.1 s · 0 % CPU". */
export function evidenceLine(e: FindingEvidence): string | null {
  const parts: string[] = [];
  if (typeof e.pid === 'number') parts.push(`pid ${e.pid}`);
  if (e.syscall?.name) {
    const args = [
      e.syscall.fd === null ? null : String(e.syscall.fd),
      e.syscall.bytes === null ? null : bytesWord(e.syscall.bytes),
    ].filter((x) => x !== null);
    parts.push(`${e.syscall.name}(${args.join(', ')})`);
  } else if (typeof e.wchan === 'string' && e.wchan) parts.push(`in ${e.wchan}`);
  if (typeof e.state === 'string') parts.push(`state ${e.state}`);
  if (typeof e.ms === 'number') parts.push(formatSeconds(e.ms));
  if (typeof e.cpuPercent === 'number') parts.push(`${Math.round(e.cpuPercent)} % CPU`);
  return parts.length === 0 ? null : parts.join(' · ');
}

function formatSeconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}
