/**
 * Findings engine: names what the session sees, live, with the stable codes of DESIGN.md.
 *
 * Owns: the session's findings (one per code, or per code and request), each with first/last
 * time and a count of episodes. A condition that holds over time (write-blocked, queue-stalled,
 * stdin-blocked, the process rules) has episodes: raised active (`since`), then resolved
 * (`resolvedAt`) when it stops holding or the session ends; its figures say when they were
 * taken (when raised, the peak while it held). Fed by: the Session's events (`raise`) and its
 * periodic tick (`evaluate`, for the rules that depend on time). Listens: `onFinding`, called
 * when a finding is new, recurs, or its episode ends (peaks are updated in place, silently: a
 * snapshot reads them; a trace gets them with the episode's end).
 */
import {
  FINDING_LEVELS,
  type Finding,
  type FindingCode,
  type FindingFigure,
  foldByCode,
  type LiveFinding,
} from '../../../shared/findings.js';
import type { FindingEvidence } from '../../../shared/process.js';
import type { Budgets } from '../../../shared/session-options.js';
import type { TickState } from './tick-state.js';

function ms(n: number): string {
  return `${Math.round(n)} ms`;
}

/** The later of two times, either of which may be unknown. */
function latest(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.max(a, b);
}

function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** A figure taken when an episode began, and its peak (the same value, to begin with). */
export function raisedAndPeak(
  label: string,
  value: number,
  unit: FindingFigure['unit'],
  t: number,
): FindingFigure[] {
  return [
    { label, value, unit, at: 'raised', t },
    { label, value, unit, at: 'peak', t },
  ];
}

export class FindingsEngine {
  private readonly findings = new Map<string, LiveFinding>();
  /** The code whose episode is starting (`opening`): its finding is raised active. */
  private openingCode: FindingCode | null = null;
  /** Rules currently in an episode (a recurrence counts only after the episode ended). */
  private readonly active = new Set<string>();
  /** Tapped: the last tick at which the host was not reading (null: not yet seen). */
  private hostStalledAt: number | null = null;

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
    figures?: FindingFigure[],
  ): LiveFinding {
    const key = requestId === undefined ? code : `${code}#${String(requestId)}`;
    const opening = this.openingCode === code;
    const existing = this.findings.get(key);
    if (existing) {
      existing.count += 1;
      existing.lastAt = t;
      existing.message = message;
      if (evidence !== undefined) existing.evidence = evidence;
      if (opening) this.begin(existing, t);
      if (figures !== undefined) existing.figures = figures;
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
      ...(figures === undefined ? {} : { figures }),
    };
    if (opening) this.begin(f, t);
    this.findings.set(key, f);
    this.onFinding(f, true);
    return f;
  }

  /** A new episode of `f`'s condition begins at `t`. */
  private begin(f: LiveFinding, t: number): void {
    f.active = true;
    f.since = t;
    delete f.resolvedAt;
    delete f.resolvedBy;
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
  private episode(
    rule: string,
    code: FindingCode,
    holds: boolean,
    t: number,
    raise: () => void,
  ): void {
    if (!holds) {
      if (this.active.delete(rule)) this.setActive(code, false, t);
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

  /** Whether the condition behind a finding (one without a request) still holds; when it ends
   *  (at `t`), the episode is resolved. The process panel highlights live evidence only. */
  setActive(
    code: FindingCode,
    active: boolean,
    t: number,
    by: 'condition' | 'session-end' = 'condition',
  ): void {
    const f = this.findings.get(code);
    if (!f || f.active === active) return;
    if (active) this.begin(f, t);
    else {
      f.active = false;
      f.resolvedAt = Math.max(t, f.since ?? f.lastAt);
      f.resolvedBy = by;
    }
    this.onFinding(f, false);
  }

  /** The session ended: every episode still open ends with it (nothing holds any more). */
  endEpisodes(t: number): void {
    this.active.clear();
    for (const f of this.findings.values())
      if (f.active === true && f.requestId === undefined)
        this.setActive(f.code, false, t, 'session-end');
  }

  /**
   * A figure of an open episode seen at `value` now: kept when higher than its peak. Silent
   * (no notification): the host's snapshots read it, a trace gets it when the episode ends.
   * The array is replaced, never mutated, so a copy handed out earlier stays as it was.
   */
  peak(code: FindingCode, label: string, value: number, t: number): void {
    const f = this.findings.get(code);
    if (f?.active !== true || f.figures === undefined) return;
    const i = f.figures.findIndex((x) => x.label === label && x.at === 'peak');
    if (i === -1 || f.figures[i].value >= value) return;
    const next = [...f.figures];
    next[i] = { ...next[i], value, t };
    f.figures = next;
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
    const notReadingFor = s.notReadingSince === null ? 0 : s.t - s.notReadingSince;
    const live = s.alive && !s.stdoutEnded;
    // Tapped, "not reading" is the host's: writes towards it wait, and the server blocked
    // behind them is not at fault (that is what only a tap can tell apart).
    const tapHostStalled = s.tapped === true && live && !s.readingStdout;
    if (tapHostStalled) this.hostStalledAt = s.t;
    // The server's silence and its blocked write count only from when the host last let it
    // write: the copies of what it wrote since may still be on their way (the relay hands them
    // over once the host has read them, up to 250 ms later) and its process may have been
    // sampled while it still waited behind the host.
    // The relay's own times make both exact where it sends them: when the host last took bytes
    // again, and when the relay last read the server (ahead of the copies).
    const heldUntil =
      latest(this.hostStalledAt, s.tapped ? (s.hostResumedAt ?? null) : null) ??
      Number.NEGATIVE_INFINITY;
    const lastByteAt = latest(s.lastStdoutByteAt, s.tapped ? (s.serverReadAt ?? null) : null);
    // Those times are as of the relay's latest state, and the native relay holds its states
    // back with a burst's copies (up to 250 ms): silence is counted up to that state, never
    // past what the relay has told (a server it kept reading since is not silent).
    const seenTo = s.tapped && s.relayStateAt != null ? Math.min(s.t, s.relayStateAt) : s.t;
    const quietFor = lastByteAt === null ? null : seenTo - Math.max(lastByteAt, heldUntil);
    // The proof's blockedMs is as of its sample, which may predate the host's last stall.
    const sampled = s.writeProof;
    const writeBlockedFor = sampled
      ? Math.min(sampled.blockedMs, (sampled.at ?? s.t) - heldUntil)
      : 0;
    const midFrameStall =
      live && s.pendingBytes > 0 && quietFor !== null && quietFor > b.writeBlockedMs;
    const hostNotReading = live && s.responsesOwed > 0 && notReadingFor > b.writeBlockedMs;
    // The process shows it: one write() to stdout that has not finished (the pipe stayed full).
    const pipeFull = live && s.responsesOwed > 0 && writeBlockedFor > b.writeBlockedMs;
    if (s.tapped) this.hostNotReading(s, tapHostStalled && notReadingFor > b.writeBlockedMs);
    const blocked = !tapHostStalled && (midFrameStall || hostNotReading || pipeFull);
    this.episode('write-blocked', 'server-write-blocked', blocked, s.t, () => {
      // Tapped, the silence counted from the host's last stall, not the last byte: say so.
      const since = (lastByteAt ?? 0) < heldUntil ? ' since the host read again' : '';
      const why = hostNotReading
        ? `the host has not read stdout for ${ms(notReadingFor)} (reader ${s.readerMode})`
        : midFrameStall
          ? `stdout stopped mid-frame at ${s.pendingBytes} bytes, silent for ${ms(quietFor ?? 0)}${since}`
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
        [
          ...raisedAndPeak('responses owed', s.responsesOwed, 'count', s.t),
          ...raisedAndPeak('frame bytes pending', s.pendingBytes, 'bytes', s.t),
        ],
      );
    });
    if (blocked) {
      this.peak('server-write-blocked', 'responses owed', s.responsesOwed, s.t);
      this.peak('server-write-blocked', 'frame bytes pending', s.pendingBytes, s.t);
    }
    // The proof may come a sample later than the finding (the server was still writing then).
    if (blocked && s.writeProof)
      this.amend('server-write-blocked', s.writeProof.evidence, s.writeProof.text);

    this.queueStalled(s);

    const stdinWait = s.stdinPendingSince === null ? 0 : s.t - s.stdinPendingSince;
    const stdinBlocked = stdinWait > b.stdinWaitMs;
    this.episode('stdin-blocked', 'stdin-blocked', stdinBlocked, s.t, () =>
      this.raise(
        'stdin-blocked',
        `writes to the server's stdin have waited ${ms(stdinWait)} for the pipe to drain ` +
          `(${s.stdinPendingBytes} bytes pending): the server is not reading its input`,
        s.t,
        undefined,
        undefined,
        [
          ...raisedAndPeak('stdin wait', stdinWait, 'ms', s.t),
          ...raisedAndPeak('stdin bytes pending', s.stdinPendingBytes, 'bytes', s.t),
        ],
      ),
    );
    if (stdinBlocked) {
      this.peak('stdin-blocked', 'stdin wait', stdinWait, s.t);
      this.peak('stdin-blocked', 'stdin bytes pending', s.stdinPendingBytes, s.t);
    }
  }

  /**
   * The host queue fell behind. Three measures, named apart (the counters show the same
   * three): how long the oldest complete message has waited for the consumer (queue wait),
   * how many wait (queue depth), and the longest single wait of the worker's reader for
   * credits (the report's dispatcher wait: the reader stalls only once the spill is full).
   */
  private queueStalled(s: TickState): void {
    // A tapped session's queue is Pipescope's own observer, not the host's (which the tap
    // cannot see): its lag is ours, and must never be named as the host's.
    if (s.tapped) return;
    const b = this.budgets;
    const stalledWait = s.dispatcherLongestWaitMs > b.dispatcherWaitMs;
    const oldMessage = s.queueOldestAgeMs > b.dispatcherWaitMs;
    const deep = s.dispatcherDepth > b.dispatcherDepth;
    const holds = stalledWait || oldMessage || deep;
    this.episode('queue-stalled', 'host-queue-stalled', holds, s.t, () => {
      const over = [
        oldMessage ? `queue wait over ${ms(b.dispatcherWaitMs)}` : '',
        deep ? `depth over ${count(b.dispatcherDepth)}` : '',
        stalledWait ? `reader stalled over ${ms(b.dispatcherWaitMs)} for credits` : '',
      ].filter(Boolean);
      this.raise(
        'host-queue-stalled',
        `dispatch fell behind (${over.join(', ')}): when raised, the oldest queued message ` +
          `had waited ${ms(s.queueOldestAgeMs)}, queue depth ${count(s.dispatcherDepth)}, the ` +
          `reader's longest wait for credits ${ms(s.dispatcherLongestWaitMs)}`,
        s.t,
        undefined,
        undefined,
        [
          ...raisedAndPeak('queue depth', s.dispatcherDepth, 'count', s.t),
          ...raisedAndPeak('queue wait', s.queueOldestAgeMs, 'ms', s.t),
          ...raisedAndPeak('reader wait for credits', s.dispatcherLongestWaitMs, 'ms', s.t),
        ],
      );
    });
    if (!holds) return;
    this.peak('host-queue-stalled', 'queue depth', s.dispatcherDepth, s.t);
    this.peak('host-queue-stalled', 'queue wait', s.queueOldestAgeMs, s.t);
    this.peak('host-queue-stalled', 'reader wait for credits', s.dispatcherLongestWaitMs, s.t);
  }

  /** Tapped sessions: the host has not taken what the tap wrote towards it. */
  private hostNotReading(s: TickState, stalled: boolean): void {
    this.episode('host-not-reading', 'host-not-reading', stalled, s.t, () => {
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
        raisedAndPeak('bytes the host has not taken', s.hostPendingBytes ?? 0, 'bytes', s.t),
      );
    });
    if (stalled) {
      this.peak('host-not-reading', 'bytes the host has not taken', s.hostPendingBytes ?? 0, s.t);
      if (s.writeProof)
        this.amend(
          'host-not-reading',
          s.writeProof.evidence,
          `the server waits behind it: ${s.writeProof.text}`,
        );
    }
  }

  all(): LiveFinding[] {
    return [...this.findings.values()].sort((a, b) => a.firstAt - b.firstAt);
  }

  /** Findings as the report lists them: one per code, the first message, counts folded in. */
  forReport(): Finding[] {
    return foldByCode(this.all());
  }
}
