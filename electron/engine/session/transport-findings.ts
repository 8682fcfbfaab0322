/**
 * What the transport's own events say about the server, as findings: a frame over the
 * transport limit, the worker's spill full (the overload policy engaged), stdout ending inside
 * a frame; and, at the stop, processes that outlived the ladder and stderr not kept. Fed by: the session's Transport. Raises into: the session's FindingsEngine (and the
 * frame store, which keeps an oversize frame's place). The session's state and exit stay the
 * session's own (session.ts).
 */
import { hostProfile, sizeText } from '../../../shared/host-profiles.js';
import type { Disposable } from '../../../shared/lifecycle.js';
import { DisposableStore, listen } from '../../../shared/lifecycle.js';
import type { SessionConfig } from '../../../shared/session-config.js';
import { type LeftProcess, SPILL_MAX_FRAMES } from '../../wire/protocol.js';
import type { Transport, TransportEvents } from '../transport/transport.js';
import type { FindingsEngine } from './findings-engine.js';
import type { FrameStore } from './frame-store.js';
import { discardedLineId, type EdgeId } from './oversize-id.js';
import type { RequestTable } from './request-table.js';

export interface TransportFindingsTarget {
  config: SessionConfig;
  findings: FindingsEngine;
  frames: FrameStore;
  requests: Pick<RequestTable, 'get' | 'fail' | 'failPending'>;
  /** The framer hit maxFrameBytes or found the next newline (for traces). */
  oversize(info: TransportEvents['oversize'][0]): void;
  /** A policy ended the session (`terminate`). */
  stop(): void;
}

/** Raises the transport's findings until the returned Disposable is released. */
export function watchTransportFindings(t: Transport, s: TransportFindingsTarget): Disposable {
  const store = new DisposableStore();
  const on = <E extends keyof TransportEvents>(
    event: E,
    listener: (...args: TransportEvents[E]) => void,
  ): void => {
    store.add(listen(t, event, listener as (...args: unknown[]) => void));
  };
  on('oversize', (o) => {
    s.oversize(o);
    if (o.phase === 'end') {
      if (s.config.onOversize !== 'terminate') failDiscarded(s, o);
      return;
    }
    s.frames.add(
      { dir: 'in', t: o.t, offset: o.offset, kind: 'oversize', problem: 'over maxFrameBytes' },
      Buffer.alloc(0),
    );
    const terminate = s.config.onOversize === 'terminate';
    const limit = `maxFrameBytes (${sizeText(s.config.maxFrameBytes)})`;
    s.findings.raise(
      'oversize-frame',
      `a frame at offset ${o.offset} passed ${limit}; ` +
        (terminate ? closedWords(s.config) : 'discarded to the next newline'),
      o.t,
    );
    if (!terminate) return;
    // The worker is already running the ladder: the session is stopping, so the exit that
    // follows is ours, not a `server-exited`. Every request still owed fails now, as a client
    // that closes the connection fails them; the one the line answered says so.
    const edge = discardedLineId(o);
    const owner = edge && s.requests.get(edge.id)?.status === 'pending' ? edge : null;
    if (owner)
      s.requests.fail(owner.id, { code: -32000, message: terminatedWords(s.config, owner) });
    s.requests.failPending({ code: -32000, message: closedWords(s.config) });
    s.stop();
  });
  on('overload', (o) => {
    s.findings.raise(
      'dispatch-overflow',
      `worker spill full: ${o.frames} frames, ${o.bytes} bytes held (bounds: ` +
        `${s.config.spillMaxBytes} bytes, ${SPILL_MAX_FRAMES} frames); policy ${o.policy}`,
      o.t,
    );
    if (o.policy === 'terminate') s.stop();
  });
  on('observe-gap', (bytes, at) =>
    s.findings.raise(
      'dispatch-overflow',
      `the tap's observer fell behind: ${bytes} bytes of stdout were relayed to the host but ` +
        'not observed (the frame they fell in is not shown)',
      at,
    ),
  );
  on('stdout-end', (partial, at) => {
    if (partial === 0) return;
    s.findings.raise(
      'truncated-at-exit',
      `stdout ended with ${partial} bytes of an unterminated frame (never delivered)`,
      at,
    );
  });
  return store;
}

/** The request a line discarded over the limit answered fails at once, saying why and how big. */
function failDiscarded(s: TransportFindingsTarget, o: TransportEvents['oversize'][0]): void {
  const edge = discardedLineId(o);
  if (!edge || s.requests.get(edge.id)?.status !== 'pending') return;
  const where = edge.from === 'head' ? 'first' : 'last';
  s.requests.fail(edge.id, {
    code: -32000,
    message:
      `response discarded: a ${sizeText(o.bytes)} line over the ${sizeText(s.config.maxFrameBytes)} transport ` +
      `limit (maxFrameBytes); id ${JSON.stringify(edge.id)} read from its ${where} bytes`,
  });
}

/** What ending the session over the limit stands for: the profile's client closing, or ours. */
function closedWords(c: SessionConfig): string {
  if (c.hostProfile) {
    const p = hostProfile(c.hostProfile);
    const cap = p.transportCap?.value;
    if (cap?.past === 'terminate' && cap.bytes === c.maxFrameBytes) {
      return `session ended as the ${p.name} would: ${p.transportCap?.note}`;
    }
  }
  return 'session ended (--on-oversize terminate): connection closed';
}

function terminatedWords(c: SessionConfig, edge: EdgeId): string {
  const where = edge.from === 'head' ? 'first' : 'last';
  return (
    `its answer passed the ${sizeText(c.maxFrameBytes)} transport limit (maxFrameBytes; id ` +
    `${JSON.stringify(edge.id)} read from the line's ${where} bytes): ${closedWords(c)}`
  );
}

/** The findings of a stop's result: open episodes end, processes left behind, stderr dropped. */
export function raiseStopFindings(
  findings: FindingsEngine,
  t: number,
  s: { left: readonly LeftProcess[]; stderrDropped: number; stderrDroppedInWorker: number },
): void {
  // Nothing holds once the server is gone: each condition still open ends with the session.
  findings.endEpisodes(t);
  if (s.left.length > 0) findings.raise('processes-left', leftMessage(s.left), t);
  if (s.stderrDropped === 0) return;
  const inWorker = s.stderrDroppedInWorker;
  const never = inWorker > 0 ? `, ${inWorker} of them read faster than the host took them` : '';
  findings.raise(
    'stderr-dropped',
    `${s.stderrDropped} bytes of stderr dropped from the bounded ring${never} ` +
      '(all counted in stderr bytes)',
    t,
  );
}

function leftMessage(left: readonly LeftProcess[]): string {
  const where = (p: LeftProcess): string =>
    p.why === 'group' ? 'in its process group' : 'outside its group, holding its stdio';
  const one = (p: LeftProcess): string =>
    `${p.pid} ${p.command.slice(0, 120)} (${where(p)}; ${p.killed ? 'killed' : 'still running'})`;
  const n = left.length;
  const list = left.map(one).join(', ');
  return `${n} process${n === 1 ? '' : 'es'} of the server outlived the stop ladder: ${list}`;
}
