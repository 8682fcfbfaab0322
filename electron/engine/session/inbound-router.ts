/**
 * Inbound router: what main does with each complete message the dispatcher hands it.
 *
 * Owns: the notification count, the last progress value per token and the pollution ledger's
 * bound. Fed by: the Session's dispatcher (`route`, one frame at a time). Listens: the request
 * table (responses, progress), the findings engine (pollution, anomalies, ignored
 * cancellations), the frame store, and the writer (answers to server→client requests).
 */
import type { JsonRpcId, RequestRecord } from '../../../shared/requests.js';
import { classifyValue } from '../../wire/classify.js';
import type { Frame } from '../transport/transport.js';
import type { FindingsEngine } from './findings-engine.js';
import type { FrameStore, FrameSummary } from './frame-store.js';
import type { EarlyAnswers } from './host-traffic.js';
import type { RequestTable } from './request-table.js';

export interface PollutionEntry {
  t: number;
  offset: number;
  bytes: number;
  preview: string;
  problem: string;
}

export interface RouterDeps {
  frames: FrameStore;
  requests: RequestTable;
  findings: FindingsEngine;
  pollution: PollutionEntry[];
  write(msg: object): void;
  onFrame(summary: FrameSummary): void;
  /** A response line reached its request (the result auditor reads audited methods'). */
  onResponse?(record: RequestRecord, data: Frame['data']): void;
  /** A tapped session's: where an answer whose request is not known yet waits for it. */
  early?(): EarlyAnswers | null;
}

const POLLUTION_LEDGER_MAX = 1000;
/** Progress for a cancelled request later than this means the server kept producing. */
const CANCEL_GRACE_MS = 250;

export class InboundRouter {
  /** Requests from the server that were our own, echoed back. */
  echoes = 0;
  notifications = 0;

  constructor(private readonly deps: RouterDeps) {}

  /** Routes one consumed frame: responses to the request table, server requests answered. */
  route(f: Frame): void {
    const summary = this.deps.frames.add(
      {
        dir: 'in',
        t: f.t,
        offset: f.offset,
        kind: f.kind,
        id: f.id,
        method: f.method,
        problem: f.problem,
      },
      f,
    );
    this.deps.onFrame(summary);
    switch (f.kind) {
      case 'response':
        this.respond(f, summary.seq);
        break;
      case 'request':
        this.answerServerRequest(f.id ?? 0, f.method ?? '');
        break;
      case 'notification':
        this.notifications += 1;
        if (f.method === 'notifications/progress') this.onProgress(f);
        break;
      case 'batch':
        this.routeBatch(f);
        break;
      case 'parse-error':
      case 'empty':
        this.addPollution(f);
        break;
      case 'invalid':
        this.deps.findings.raise('invalid-message', `offset ${f.offset}: ${f.problem}`, f.t);
        break;
    }
  }

  private respond(f: Frame, seq: number): void {
    const id = f.id ?? null;
    const early = this.deps.early?.();
    if (early && id !== null && !this.deps.requests.get(id)) {
      // Tapped: the host's line may still be on its way (see EarlyAnswers).
      early.hold(id, () => this.respondNow(f, seq));
      return;
    }
    this.respondNow(f, seq);
  }

  private respondNow(f: Frame, seq: number): void {
    const { bytes, t, error, data } = f;
    const r = this.deps.requests.respond(f.id ?? null, { bytes, t, error, data, seq });
    if (r && r.responseSeq === seq) this.deps.onResponse?.(r, data);
  }

  private routeBatch(f: Frame): void {
    // JSON-RPC batches were removed from MCP in 2025-06-18; still route what they carry.
    let items: unknown[] = [];
    const data = f.data;
    try {
      items = JSON.parse(data.toString('utf8')) as unknown[];
    } catch {
      return;
    }
    for (const item of items) {
      const c = classifyValue(item);
      if (c.kind === 'response') {
        // The batch's bytes stand for each response in it.
        this.deps.requests.respond(c.id ?? null, { bytes: f.bytes, t: f.t, error: c.error, data });
      } else if (c.kind === 'request') {
        this.answerServerRequest(c.id ?? 0, c.method ?? '');
      } else if (c.kind === 'notification') {
        this.notifications += 1;
      }
    }
  }

  private addPollution(f: Frame): void {
    // Once the ledger is full, a flood of pollution (`yes`) only counts: no preview decoded and
    // no message written for each line.
    const ledgerFull = this.deps.pollution.length >= POLLUTION_LEDGER_MAX;
    if (ledgerFull && this.deps.findings.again('stdout-pollution', f.t)) return;
    const preview = f.data.subarray(0, 120).toString('utf8');
    if (this.deps.pollution.length < POLLUTION_LEDGER_MAX) {
      this.deps.pollution.push({
        t: f.t,
        offset: f.offset,
        bytes: f.bytes,
        preview,
        problem: f.problem ?? '',
      });
    }
    this.deps.findings.raise(
      'stdout-pollution',
      `non-JSON line on stdout at offset ${f.offset} (${f.bytes} bytes): ${JSON.stringify(preview)}`,
      f.t,
    );
  }

  private onProgress(f: Frame): void {
    if (f.progressToken === undefined) return;
    // MCP progress must increase with each notification (utilities/progress). Only our own
    // tokens are tracked, in their request records: hostile tokens cost nothing to keep.
    const prev = this.deps.requests.lastProgressFor(f.progressToken);
    const r = this.deps.requests.progress(f.progressToken, f.progress);
    if (r && f.progress !== undefined && prev !== null && f.progress <= prev) {
      this.deps.findings.raise(
        'progress-anomaly',
        `progress for request ${String(r.id)} did not increase (${prev} → ${f.progress})`,
        f.t,
      );
    }
    if (!r) {
      this.deps.findings.raise(
        'progress-anomaly',
        `progress for unknown token ${String(f.progressToken)}`,
        f.t,
      );
      return;
    }
    if (r.status === 'cancelled' || r.status === 'timed-out' || r.status === 'late') {
      if (r.cancelledAt !== null && f.t - r.cancelledAt > CANCEL_GRACE_MS) {
        this.deps.findings.raise(
          'cancel-ignored',
          `request ${String(r.id)} (${r.method}) still reports progress ` +
            `${Math.round(f.t - r.cancelledAt)} ms after its cancellation`,
          f.t,
          r.id,
        );
      }
    } else if (r.status !== 'pending') {
      this.deps.findings.raise(
        'progress-anomaly',
        `progress for finished request ${String(r.id)}`,
        f.t,
      );
    }
  }

  private answerServerRequest(id: JsonRpcId, method: string): void {
    // A request with one of our own ids and methods is ours coming back: stdout echoes stdin
    // (`cat`, a shell loop), which no MCP server does.
    if (this.deps.requests.get(id)?.method === method) this.echoes += 1;
    // HARDENING.md 15: answer pings, refuse what we do not support; never stay silent.
    if (method === 'ping') this.deps.write({ jsonrpc: '2.0', id, result: {} });
    else {
      this.deps.write({
        jsonrpc: '2.0',
        id,
        error: {
          code: -32601,
          message: `Method not found: ${method} (not supported by pipescope)`,
        },
      });
    }
  }
}
