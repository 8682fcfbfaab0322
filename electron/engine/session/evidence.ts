/**
 * SessionEvidence: what the session knows beyond the pipe — the server's process tree
 * (sampler and the rules on it) and the signatures of the session's end.
 *
 * Owns: the ProcessSampler (started with the server, stopped with the session), the process
 * rules, the end signatures. Fed by: the session (the pid, each tick's state, request changes,
 * the stop). Listens: the session, for each sample (`onSample`).
 */
import {
  type Disposable,
  DisposableStore,
  listen,
  toDisposable,
} from '../../../shared/lifecycle.js';
import type { ProcessAvailability, ProcessSnapshot } from '../../../shared/process.js';
import type { RequestRecord } from '../../../shared/requests.js';
import type { SessionConfig } from '../../../shared/session-config.js';
import type { ExitInfo } from '../../wire/protocol.js';
import { processSource } from '../process/platform.js';
import { ProcessSampler } from '../process/sampler.js';
import type { ProcessSource } from '../process/source.js';
import type { Transport } from '../transport/transport.js';
import { type EndSignatureHooks, EndSignatures } from './end-signatures.js';
import type { FindingsEngine } from './findings-engine.js';
import { ProcessFindings, processLine, writeProofOf } from './process-findings.js';
import type { TickState } from './tick-state.js';

/** stdout quiet this long with an answer owed: sample fast (DESIGN.md). */
const URGENT_QUIET_MS = 250;

export interface EvidenceOptions {
  config: SessionConfig;
  findings: FindingsEngine;
  now(): number;
  /** The state the rules look at (the session's tick state). */
  state(): TickState;
  onSample(snapshot: ProcessSnapshot): void;
  end: EndSignatureHooks;
  /** Our own requests the server sent back (the router counts them). */
  echoes?(): number;
  /** Where samples come from (tests give their own; default: this platform's). */
  source?: ProcessSource;
}

export class SessionEvidence {
  private readonly sampler: ProcessSampler | null;
  private readonly rules: ProcessFindings;
  readonly end: EndSignatures;
  private stdoutEndAt: number | null = null;

  constructor(o: EvidenceOptions) {
    this.rules = new ProcessFindings(o.config.budgets, o.findings);
    this.end = new EndSignatures(o.config.budgets, o.findings, {
      late: (r) => o.end.late(r),
      unlate: (r) => o.end.unlate(r),
      lastBusyAt: () => this.rules.lastBusyAt,
      echoes: () => o.echoes?.() ?? 0,
      stdinWait: () => (this.sampler ? this.rules.stdinWait : null),
    });
    this.sampler = o.config.processSampling
      ? new ProcessSampler({
          source: o.source ?? processSource(),
          now: o.now,
          urgent: () => {
            const s = o.state();
            const quiet =
              s.lastStdoutByteAt === null || s.t - s.lastStdoutByteAt >= URGENT_QUIET_MS;
            return s.responsesOwed > 0 && quiet;
          },
          onSample: o.onSample,
        })
      : null;
  }

  /** Follows the transport (stdout's end) until the returned Disposable is released, which
   *  also stops the sampler. */
  watch(t: Transport): Disposable {
    const store = new DisposableStore();
    store.add(
      listen(t, 'stdout-end', ((_partial: number, at: number) => {
        this.stdoutEndAt = at;
      }) as (...args: unknown[]) => void),
    );
    // After the exit there is nothing to sample (and the pid may be another process's soon).
    store.add(listen(t, 'exit', () => this.stop()));
    store.add(toDisposable(() => this.stop()));
    return store;
  }

  /** The session ended: what the end says (end-signatures.ts). */
  ended(exit: ExitInfo | null, requests: readonly RequestRecord[], onItsOwn: boolean): void {
    this.end.ended(this.stdoutEndAt ?? exit?.t ?? null, requests, onItsOwn);
  }

  start(pid: number): void {
    this.sampler?.start(pid);
  }

  stop(): void {
    this.sampler?.stop();
  }

  /** Whether process evidence is had here (and why not), and how many samples were taken. */
  info(): ProcessAvailability & { samples: number } {
    if (!this.sampler) {
      return { available: false, reason: 'process sampling is off for this session', samples: 0 };
    }
    return { ...this.sampler.availability, samples: this.sampler.samples };
  }

  latest(): ProcessSnapshot | null {
    return this.sampler?.latest ?? null;
  }

  /** CPU spent reading samples (ms), for the cost measurement. */
  get spentMs(): number {
    return this.sampler?.spentMs ?? 0;
  }

  /** The tick state with the proof of a blocked write added, when the process shows one. */
  withProof(s: TickState): TickState {
    return { ...s, writeProof: writeProofOf(this.latest(), s) };
  }

  evaluate(s: TickState, owed: readonly RequestRecord[]): void {
    this.rules.evaluate({ tick: s, owed, snapshot: this.latest() });
  }

  /** The process part of a timeout's forensics, or null when there is no fresh sample. */
  processLine(t: number): string | null {
    return processLine(this.latest(), t);
  }
}
