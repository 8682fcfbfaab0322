/**
 * What a `request-timed-out` finding says: which requests were outstanding and what the pipe
 * and the host were doing when the timer fired (DESIGN.md: the timeout's forensics). Pure.
 */
import type { RequestRecord } from '../../../shared/requests.js';
import type { TickState } from './tick-state.js';

export interface TimeoutContext {
  /** The state at the moment the timer fired. */
  state: TickState;
  /** Every request still in flight (the one timed out first). */
  outstanding: RequestRecord[];
  stdinWaitMs: number;
  /** The answer already waits in the host's own queue (the host's timer, not the server). */
  answerQueued: boolean;
  /** What the server's process tree was doing at that moment (null: no fresh sample). */
  process?: string | null;
}

export function timeoutMessage(r: RequestRecord, c: TimeoutContext): string {
  const s = c.state;
  const lastByte =
    s.lastStdoutByteAt === null ? 'never' : `${Math.round(s.t - s.lastStdoutByteAt)} ms ago`;
  const forensics =
    `outstanding [${c.outstanding.map((x) => String(x.id)).join(', ')}], ` +
    `${s.pendingBytes} bytes since last newline, last stdout byte ${lastByte}, ` +
    `${r.progressCount} progress notifications, reader ${s.readerMode}, ` +
    `dispatcher depth ${s.dispatcherDepth}, stdin wait ${Math.round(c.stdinWaitMs)} ms`;
  const cancelled =
    r.method === 'initialize' ? 'no cancellation (initialize)' : 'cancellation sent';
  const waiting = c.answerQueued ? '; its answer was already waiting in the host queue' : '';
  const processes = c.process ? `. Process: ${c.process}` : '';
  return (
    `request ${String(r.id)} (${r.method}) timed out after ${Math.round(s.t - r.sentAt)} ms; ` +
    `${cancelled}${waiting}. State: ${forensics}${processes}`
  );
}
