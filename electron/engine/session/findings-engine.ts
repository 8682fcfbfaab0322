/**
 * Findings engine: names what the session sees, live, with the stable codes of DESIGN.md.
 *
 * Owns: the session's findings (one per code, or per code and request), each with first/last
 * time and a count of episodes. Fed by: the Session's events (`raise`) and its periodic tick
 * (`evaluate`, for the rules that depend on time: write-blocked, queue-stalled, stdin-blocked).
 * Listens: `onFinding`, called when a finding is new or recurs.
 */
import {
  FINDING_LEVELS,
  type Finding,
  type FindingCode,
  foldByCode,
  type LiveFinding,
} from '../../../shared/findings.js';
import type { FindingEvidence } from '../../../shared/process.js';
import type { Budgets } from '../../../shared/session-options.js';
import type { TickState } from './tick-state.js';

function ms(n: number): string {
  return `${Math.round(n)} ms`;
}

export class FindingsEngine {
  private readonly findings = new Map<string, LiveFinding>();
  /** The code whose episode is starting (`opening`): its finding is raised active. */
  private openingCode: FindingCode | null = null;
  /** Rules currently in an episode (a recurrence counts only after the episode ended). */
  private readonly active = new Set<string>();

  constructor(
    private readonly budgets: Budgets,
    private readonly onFinding: (f: LiveFinding, isNew: boolean) => void,
  ) {}

  raise(
    code: FindingCode,
    message: string,
    t: number,
    requestId?: string | number,
    evidence?: FindingEvidence,
  ): LiveFinding {
    const key = requestId === undefined ? code : `${code}#${String(requestId)}`;
    const existing = this.findings.get(key);
    if (existing) {
      existing.count += 1;
      existing.lastAt = t;
      existing.message = message;
      if (evidence !== undefined) existing.evidence = evidence;
      if (this.openingCode === code) existing.active = true;
      this.onFinding(existing, false);
      return existing;
    }
    const f: LiveFinding = {
      code,
      level: FINDING_LEVELS[code],
      message,
      firstAt: t,
      lastAt: t,
      count: 1,
      ...(requestId === undefined ? {} : { requestId }),
      ...(evidence === undefined ? {} : { evidence }),
      ...(this.openingCode === code ? { active: true } : {}),
    };
    this.findings.set(key, f);
    this.onFinding(f, true);
    return f;
  }

  /** Counts one more episode of a finding already raised (no request), keeping its message;
   *  false when there is none yet. For floods: no message is built per episode. */
  again(code: FindingCode, t: number): boolean {
    const existing = this.findings.get(code);
    if (!existing) return false;
    existing.count += 1;
    existing.lastAt = t;
    this.onFinding(existing, false);
    return true;
  }

  /** Takes back a finding that later evidence showed to be wrong (a "late" answer that was in
   *  fact flushed at exit is no ignored cancellation); true when there was one. */
  retract(code: FindingCode, requestId?: string | number): boolean {
    const key = requestId === undefined ? code : `${code}#${String(requestId)}`;
    const f = this.findings.get(key);
    if (!f) return false;
    this.findings.delete(key);
    // Listeners hear it as a count of 0: a trace records it, and what reads the trace drops it.
    this.onFinding({ ...f, count: 0 }, false);
    return true;
  }

  has(code: FindingCode): boolean {
    for (const f of this.findings.values()) if (f.code === code) return true;
    return false;
  }

  /** Raises once per episode of a condition that holds over time. */
  private episode(rule: string, code: FindingCode, holds: boolean, raise: () => void): void {
    if (!holds) {
      if (this.active.delete(rule)) this.setActive(code, false);
      return;
    }
    if (this.active.has(rule)) return;
    this.active.add(rule);
    this.opening(code, raise);
  }

  /** Runs `raise` as the start of an episode of `code`: the finding it raises (or raises again)
   *  is marked active in the same notification. */
  opening(code: FindingCode, raise: () => void): void {
    const before = this.openingCode;
    this.openingCode = code;
    try {
      raise();
    } finally {
      this.openingCode = before;
    }
  }

  /** Whether the condition behind a finding (one without a request) still holds: the process
   *  panel highlights the evidence of live ones only. */
  setActive(code: FindingCode, active: boolean): void {
    const f = this.findings.get(code);
    if (!f || f.active === active) return;
    f.active = active;
    this.onFinding(f, false);
  }

  /** Evidence seen after a finding was raised, while its condition still holds: attached, with
   *  what it shows added to the message (not a new episode). */
  amend(code: FindingCode, evidence: FindingEvidence, addition: string): void {
    const f = this.findings.get(code);
    if (!f || f.evidence !== undefined) return;
    f.evidence = evidence;
    f.message = `${f.message}; ${addition}`;
    this.onFinding(f, false);
  }

  evaluate(s: TickState): void {
    const b = this.budgets;
    const quietFor = s.lastStdoutByteAt === null ? null : s.t - s.lastStdoutByteAt;
    const notReadingFor = s.notReadingSince === null ? 0 : s.t - s.notReadingSince;
    const live = s.alive && !s.stdoutEnded;
    const midFrameStall =
      live && s.pendingBytes > 0 && quietFor !== null && quietFor > b.writeBlockedMs;
    const hostNotReading = live && s.responsesOwed > 0 && notReadingFor > b.writeBlockedMs;
    // The process shows it: one write() to stdout that has not finished (the pipe stayed full).
    const pipeFull =
      live && s.responsesOwed > 0 && (s.writeProof?.blockedMs ?? 0) > b.writeBlockedMs;
    // Tapped, "not reading" is the host's: writes towards it wait, and the server blocked
    // behind them is not at fault (that is what only a tap can tell apart).
    const tapHostStalled = s.tapped === true && live && !s.readingStdout;
    if (s.tapped) this.hostNotReading(s, tapHostStalled && notReadingFor > b.writeBlockedMs);
    const blocked = !tapHostStalled && (midFrameStall || hostNotReading || pipeFull);
    this.episode('write-blocked', 'server-write-blocked', blocked, () => {
      const why = hostNotReading
        ? `the host has not read stdout for ${ms(notReadingFor)} (reader ${s.readerMode})`
        : midFrameStall
          ? `stdout stopped mid-frame at ${s.pendingBytes} bytes, silent for ${ms(quietFor ?? 0)}`
          : `the pipe stayed full (reader ${s.readerMode})`;
      const owed = `${s.responsesOwed} response${s.responsesOwed === 1 ? '' : 's'} owed`;
      const midFrame = s.pendingBytes > 0 ? `; ${s.pendingBytes} bytes of a frame pending` : '';
      const proof = s.writeProof ? `; ${s.writeProof.text}` : '';
      this.raise(
        'server-write-blocked',
        `server alive with ${owed}: ${why}${hostNotReading ? midFrame : ''}${proof}`,
        s.t,
        undefined,
        s.writeProof?.evidence,
      );
    });
    // The proof may come a sample later than the finding (the server was still writing then).
    if (blocked && s.writeProof)
      this.amend('server-write-blocked', s.writeProof.evidence, s.writeProof.text);

    const stalledWait = s.dispatcherLongestWaitMs > b.dispatcherWaitMs;
    const oldMessage = s.queueOldestAgeMs > b.dispatcherWaitMs;
    const deep = s.dispatcherDepth > b.dispatcherDepth;
    this.episode('queue-stalled', 'host-queue-stalled', stalledWait || oldMessage || deep, () =>
      this.raise(
        'host-queue-stalled',
        `dispatch fell behind: oldest queued message waited ${ms(s.queueOldestAgeMs)}, ` +
          `reader waited ${ms(s.dispatcherLongestWaitMs)} for credits (budget ` +
          `${ms(b.dispatcherWaitMs)}), queue depth ${s.dispatcherDepth}`,
        s.t,
      ),
    );

    const stdinWait = s.stdinPendingSince === null ? 0 : s.t - s.stdinPendingSince;
    this.episode('stdin-blocked', 'stdin-blocked', stdinWait > b.stdinWaitMs, () =>
      this.raise(
        'stdin-blocked',
        `writes to the server's stdin have waited ${ms(stdinWait)} for the pipe to drain ` +
          `(${s.stdinPendingBytes} bytes pending): the server is not reading its input`,
        s.t,
      ),
    );
  }

  /** Tapped sessions: the host has not taken what the tap wrote towards it. */
  private hostNotReading(s: TickState, stalled: boolean): void {
    this.episode('host-not-reading', 'host-not-reading', stalled, () => {
      const since = s.notReadingSince === null ? 0 : s.t - s.notReadingSince;
      const owed =
        s.responsesOwed > 0 ? `, ${s.responsesOwed} of its requests answered or owed` : '';
      const proof = s.writeProof ? `; the server waits behind it: ${s.writeProof.text}` : '';
      this.raise(
        'host-not-reading',
        `the host has not read the server's stdout for ${ms(since)} (the tap holds ` +
          `${s.hostPendingBytes ?? 0} bytes it has not taken${owed})${proof}`,
        s.t,
        undefined,
        s.writeProof?.evidence,
      );
    });
    if (stalled && s.writeProof)
      this.amend(
        'host-not-reading',
        s.writeProof.evidence,
        `the server waits behind it: ${s.writeProof.text}`,
      );
  }

  all(): LiveFinding[] {
    return [...this.findings.values()].sort((a, b) => a.firstAt - b.firstAt);
  }

  /** Findings as the report lists them: one per code, the first message, counts folded in. */
  forReport(): Finding[] {
    return foldByCode(this.all());
  }
}
