/**
 * What the end of a session says about the server, from the pipe alone (every OS, with or
 * without the process sampler): an owed answer that arrives only once stdin closed or the
 * server exited was sitting in a block-buffered stdout (`server-output-buffered`); and a
 * handshake that failed, was refused or never answered (`handshake-failed`).
 *
 * Owns: when the stop was asked, the answers held back from being called late until the end
 * shows what they were. Fed by: the session (stop asked, stdout's end, request changes) and the
 * request table (`holdLate`, before a late answer is counted). Raises into: the FindingsEngine.
 */
import type { RequestRecord } from '../../../shared/requests.js';
import type { Budgets } from '../../../shared/session-options.js';
import type { FindingsEngine } from './findings-engine.js';

/** An answer this close before stdout's end was flushed by the exit (ms): a runtime flushes
 *  stdio at exit within milliseconds; the rest is a loaded machine's slack. */
const END_MS = 500;
/** A buffered answer flushed by stdin's EOF comes right after it: the read returns, the loop
 *  ends, the runtime flushes. One later than this was written by something still working. */
const AFTER_CLOSE_MS = 500;

export interface EndSignatureHooks {
  /** When the server was last seen working on CPU (null: never, or no process evidence). */
  lastBusyAt?(): number | null;
  /** How many of our own requests came back from the server (stdout echoing stdin). */
  echoes?(): number;
  /** Whether the newest process sample showed the server waiting on stdin, and when it last
   *  did (null: no process evidence). */
  stdinWait?(): { now: boolean; lastAt: number | null } | null;
  /** A held answer turned out late after all: count it and judge it (cancel-ignored). */
  late(r: RequestRecord): void;
  /** An answer already counted late turned out flushed at exit: take it back. */
  unlate(r: RequestRecord): void;
}

export class EndSignatures {
  private stopAskedAt: number | null = null;
  private readingAtStop = true;
  /** What the process showed when the stop was asked (null: no process evidence). */
  private waitAtStop: { now: boolean; lastAt: number | null } | null = null;
  private readonly held: RequestRecord[] = [];
  private handshakeRaised = false;

  constructor(
    private readonly budgets: Budgets,
    private readonly findings: FindingsEngine,
    private readonly hooks: EndSignatureHooks,
  ) {}

  /** The stop ladder is about to close the server's stdin; `hostReading`: whether stdout was
   *  being read then (a paused reader holds answers back itself: the stop's drain lets them
   *  through, which says nothing of the server's buffering). */
  stopAsked(t: number, hostReading: boolean): void {
    if (this.stopAskedAt !== null) return;
    this.stopAskedAt = t;
    this.readingAtStop = hostReading;
    this.waitAtStop = this.hooks.stdinWait?.() ?? null;
  }

  /** Whether the answer to a cancelled or timed-out request, arriving at `t`, must wait for the
   *  end before it is called late: it came after stdin closed, owed for over the budget. */
  holdLate(r: RequestRecord, t: number): boolean {
    const asked = this.stopAskedAt;
    if (asked === null || t < asked || r.progressCount > 0 || !this.readingAtStop) return false;
    if (t - asked > AFTER_CLOSE_MS || this.waitAtStop?.now === false) return false;
    const busyAt = this.hooks.lastBusyAt?.() ?? null;
    if (busyAt !== null && busyAt >= r.sentAt) return false;
    if (asked - r.sentAt < this.budgets.outputBufferedMs) return false;
    this.held.push(r);
    return true;
  }

  /** A request changed: a failed, refused or unanswered initialize is `handshake-failed`. */
  changed(r: RequestRecord, t: number): void {
    if (r.method !== 'initialize' || this.handshakeRaised) return;
    let why: string | null = null;
    const echoes = this.hooks.echoes?.() ?? 0;
    if (echoes > 0 && r.status !== 'completed' && r.status !== 'pending') {
      why =
        `the server's stdout echoed Pipescope's own messages back (${echoes} of them): this is ` +
        'not an MCP server (cat does this)';
    } else if (r.status === 'failed' && r.error && r.responseBytes !== null) {
      why = `the server answered it with error ${r.error.code}: ${r.error.message.slice(0, 200)}`;
    } else if (r.status === 'failed') {
      why = r.error?.message ?? 'it failed';
    } else if (r.status === 'timed-out') {
      why = `no answer within ${Math.round(t - r.sentAt)} ms (timed out)`;
    }
    if (why === null) return;
    this.handshakeRaised = true;
    this.findings.raise(
      'handshake-failed',
      `initialize (request ${String(r.id)}) failed: ${why}; nothing else can work on this session`,
      t,
      r.id,
    );
  }

  /**
   * The session has ended: stdout reached its end at `endAt` (or the process exited then).
   * `requests`: every record. Answers that arrived only at the end are named; held answers
   * that were not are late after all.
   */
  ended(endAt: number | null, requests: readonly RequestRecord[], exitedOnItsOwn: boolean): void {
    const flushed: { r: RequestRecord; at: number; how: string }[] = [];
    for (const r of requests) {
      if (r.latencyMs === null || r.method === 'initialize') continue;
      const at = r.sentAt + r.latencyMs;
      const owedFor = r.latencyMs;
      const atEnd = endAt !== null && endAt - at <= END_MS && at <= endAt + END_MS;
      if (!atEnd || owedFor < this.budgets.outputBufferedMs || r.progressCount > 0) continue;
      // A server seen working on CPU while the answer was owed finished late, it did not buffer.
      const busyAt = this.hooks.lastBusyAt?.() ?? null;
      if (busyAt !== null && busyAt >= r.sentAt) continue;
      if (this.stopAskedAt !== null && at >= this.stopAskedAt) {
        // The host held it back, it came too long after stdin's EOF, or the server was seen
        // doing something else than waiting for input: not a flush at exit.
        if (!this.readingAtStop || at - this.stopAskedAt > AFTER_CLOSE_MS) continue;
        if (this.waitAtStop?.now === false) continue;
        flushed.push({ r, at, how: 'only once its stdin was closed, just before stdout ended' });
      } else if (exitedOnItsOwn) {
        // With process evidence, only a server seen waiting on stdin while it owed the answer.
        const wait = this.hooks.stdinWait?.() ?? null;
        if (wait !== null && (wait.lastAt === null || wait.lastAt < r.sentAt)) continue;
        flushed.push({ r, at, how: 'only as the server exited, just before stdout ended' });
      }
    }
    const names = new Set(flushed.map((f) => f.r));
    for (const r of this.held.splice(0)) if (!names.has(r)) this.hooks.late(r);
    for (const { r } of flushed) if (r.status === 'late') this.hooks.unlate(r);
    if (flushed.length === 0) return;
    const first = flushed[0];
    const others = flushed.length > 1 ? ` (and ${flushed.length - 1} more)` : '';
    this.findings.raise(
      'server-output-buffered',
      `request ${String(first.r.id)} (${first.r.method})${others} was answered ${first.how}, ` +
        `${(first.r.latencyMs ?? 0) / 1000 >= 10 ? Math.round((first.r.latencyMs ?? 0) / 1000) : ((first.r.latencyMs ?? 0) / 1000).toFixed(1)} s after it was sent: ` +
        'the answer sat in a block-buffered stdout and was flushed at exit (not a late answer: ' +
        'the server never saw a reason to hold it)',
      first.at,
      first.r.id,
      { requestId: first.r.id, ms: Math.round(first.r.latencyMs ?? 0), flushedAt: first.how },
    );
  }
}
