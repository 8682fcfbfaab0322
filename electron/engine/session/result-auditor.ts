/**
 * Audits each answer to `tools/call`, `resources/read` and `prompts/get` (DESIGN.md "Results
 * and host profiles") and raises `result-over-budget` for one larger than the session's result
 * budget or past a host profile's known limit, naming the hosts it breaks and whether it says
 * it is incomplete.
 *
 * Owns: the session's audit thread (engine/transport/audit-thread.ts) and the audits still out.
 * Fed by: the inbound router (each response line of an audited request). Raises into: the
 * session's FindingsEngine; the record gains `audit` and the session emits it again. Answers up
 * to INLINE_MAX_BYTES are audited here at once; larger ones on the thread, so the session keeps
 * dispatching while a 42 MiB answer is parsed. `settled()` waits for the audits still out
 * (a probe's report waits for them).
 */
import { hostsBroken, sizeText } from '../../../shared/host-profiles.js';
import type { RequestRecord } from '../../../shared/requests.js';
import {
  auditResult,
  bytesOnlyAudit,
  isAuditedMethod,
  type ResultAudit,
} from '../../../shared/result-audit.js';
import type { SessionConfig } from '../../../shared/session-config.js';
import { AuditThread } from '../transport/audit-thread.js';
import type { FrameBytes } from '../transport/frame-bytes.js';
import type { FindingsEngine } from './findings-engine.js';

/** Answers up to this size are parsed on main (a few ms); larger ones on the audit thread. */
export const INLINE_MAX_BYTES = 1024 * 1024;

/** The session, as the auditor sees it. */
export interface ResultAuditorDeps {
  readonly config: SessionConfig;
  readonly findings: FindingsEngine;
  now(): number;
  /** The record gained its audit: emitted again. */
  emit(event: 'request', record: RequestRecord): boolean;
}

/** The audit of a line parsed here. */
function auditLine(record: RequestRecord, data: FrameBytes): ResultAudit {
  const method = record.method as Parameters<typeof auditResult>[0];
  try {
    const msg: unknown = JSON.parse(data.toString('utf8'));
    const result =
      typeof msg === 'object' && msg !== null ? (msg as { result?: unknown }).result : undefined;
    if (result === undefined)
      return bytesOnlyAudit(method, data.length, 'the answer has no result');
    return auditResult(method, result, data.length);
  } catch (e) {
    return bytesOnlyAudit(method, data.length, `not readable as JSON (${(e as Error).message})`);
  }
}

export class ResultAuditor {
  private readonly thread = new AuditThread();
  private readonly out = new Set<Promise<void>>();

  constructor(private readonly deps: ResultAuditorDeps) {}

  /** One response line of `record` (the router calls it for every answered request). */
  offer(record: RequestRecord, data: FrameBytes): void {
    if (!isAuditedMethod(record.method) || record.error || record.audit) return;
    if (data.length <= INLINE_MAX_BYTES) {
      this.apply(record, auditLine(record, data));
      return;
    }
    const p = this.thread.audit(record.method, data).then((a) => {
      this.out.delete(p);
      this.apply(record, a);
    });
    this.out.add(p);
  }

  /** Resolves once every audit out has landed. */
  async settled(): Promise<void> {
    while (this.out.size > 0) await Promise.all([...this.out]);
  }

  /** The session stops: the audits out land, then the thread ends. */
  async close(): Promise<void> {
    await this.settled();
    this.thread.dispose();
  }

  private apply(record: RequestRecord, audit: ResultAudit): void {
    record.audit = audit;
    const message = overBudgetMessage(record, audit, this.deps.config.resultBudgetBytes);
    if (message !== null) {
      this.deps.findings.raise('result-over-budget', message, this.deps.now(), record.id);
    }
    this.deps.emit('request', record);
  }
}

/** The `result-over-budget` message for an answer, or null when it is within every limit. */
export function overBudgetMessage(
  record: Pick<RequestRecord, 'id' | 'method'>,
  audit: ResultAudit,
  budgetBytes: number,
): string | null {
  const breaks = hostsBroken(audit);
  const over = audit.bytes > budgetBytes;
  if (!over && breaks.length === 0) return null;
  const parts = [
    `${record.method} ${JSON.stringify(record.id)} answered ${sizeText(audit.bytes)}` +
      (over ? `, over the ${sizeText(budgetBytes)} result budget` : ''),
  ];
  if (breaks.length > 0) {
    const hosts = breaks.map((b) => `${b.name} (${b.why}; ${b.status})`).join('; ');
    parts.push(`it breaks ${hosts}`);
  } else parts.push('no host profile known to break on it');
  parts.push(
    audit.incomplete.length > 0
      ? `it says it is incomplete (${audit.incomplete.join(', ')})`
      : 'it does not say it is incomplete (no truncated, no nextCursor)',
  );
  if (audit.duplicatedBytes > 0) {
    parts.push(
      `${sizeText(audit.duplicatedBytes)} of text sent twice (content and structuredContent)`,
    );
  }
  if (audit.base64.count > 0) {
    parts.push(`${audit.base64.count} base64 payload(s) in text, ${sizeText(audit.base64.bytes)}`);
  }
  if (audit.partial) parts.push(`body not audited: ${audit.partial}`);
  return `${parts.join('; ')}.`;
}
