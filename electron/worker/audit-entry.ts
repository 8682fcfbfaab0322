/**
 * The result audit thread's entry (engine/transport/audit-thread.ts starts it, lazily, for
 * answers too large to parse on main without stalling the session): each message is one
 * response line's bytes, moved here, never copied back; the answer is its ResultAudit. A line
 * that is not JSON, or has no `result`, still gets an audit of its bytes, saying why.
 */
import { parentPort } from 'node:worker_threads';
import { type AuditedMethod, auditResult, bytesOnlyAudit } from '../../shared/result-audit.js';
import { lowerThisThread } from './thread-priority.js';

export interface AuditJob {
  job: number;
  method: AuditedMethod;
  bytes: Uint8Array;
}

if (!parentPort) throw new Error('the audit worker must run in a worker thread');
const port = parentPort;
// Bulk work whose findings may come late (result-over-budget): it yields to the server, the
// reader and everything a person is looking at.
lowerThisThread(10);

port.on('message', (m: AuditJob) => {
  const n = m.bytes.byteLength;
  let audit: ReturnType<typeof auditResult>;
  try {
    const text = Buffer.from(m.bytes.buffer, m.bytes.byteOffset, n).toString('utf8');
    const msg: unknown = JSON.parse(text);
    const result =
      typeof msg === 'object' && msg !== null ? (msg as { result?: unknown }).result : undefined;
    audit =
      result === undefined
        ? bytesOnlyAudit(m.method, n, 'the answer has no result')
        : auditResult(m.method, result, n);
  } catch (e) {
    audit = bytesOnlyAudit(m.method, n, `not readable as JSON (${(e as Error).message})`);
  }
  port.postMessage({ job: m.job, audit });
});
