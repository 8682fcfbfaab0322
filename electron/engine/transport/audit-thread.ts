/**
 * The result audit thread: large answers are parsed and audited here, off the main thread, so
 * a 42 MiB `read_text_file` answer costs the session a copy, not a 300 ms stall of its
 * dispatcher. Started on the first large answer, one per session; held (ref'd) only while jobs
 * are out, so it never keeps a process alive by itself. Bounded: at most QUEUE_MAX_BYTES of
 * answers are out at once; one past that, or one the thread dies on (its heap is bounded
 * too), gets an audit of its bytes only, saying why.
 */
import { Worker } from 'node:worker_threads';
import {
  type AuditedMethod,
  bytesOnlyAudit,
  type ResultAudit,
} from '../../../shared/result-audit.js';
import { builtPaths } from '../../paths.js';
import { ChunkedBytes, type FrameBytes } from './frame-bytes.js';

/** Bytes of answers the thread may hold at once (each is moved there whole). */
export const QUEUE_MAX_BYTES = 256 * 1024 * 1024;
/** The thread's heap: a 128 MiB line parsed as JSON needs a few times its size. */
const HEAP_MB = 2048;

interface Job {
  method: AuditedMethod;
  bytes: number;
  resolve: (a: ResultAudit) => void;
}

/** A frame's bytes as one fresh buffer of its own (transferable; never a view of a slab). */
function ownCopy(data: FrameBytes): Uint8Array {
  const out = new Uint8Array(data.length);
  if (data instanceof ChunkedBytes) {
    let at = 0;
    for (const c of data.chunks) {
      out.set(c, at);
      at += c.length;
    }
  } else out.set(data);
  return out;
}

export class AuditThread {
  private worker: Worker | null = null;
  private readonly jobs = new Map<number, Job>();
  private nextJob = 1;
  private queuedBytes = 0;
  private disposed = false;

  /** The audit of one answer (never rejects). */
  audit(method: AuditedMethod, data: FrameBytes): Promise<ResultAudit> {
    const n = data.length;
    if (this.disposed) return Promise.resolve(bytesOnlyAudit(method, n, 'the session ended'));
    if (this.queuedBytes + n > QUEUE_MAX_BYTES) {
      const why = `audit queue full (${this.queuedBytes} bytes of answers still being audited)`;
      return Promise.resolve(bytesOnlyAudit(method, n, why));
    }
    const w = this.start();
    const job = this.nextJob++;
    const bytes = ownCopy(data);
    this.queuedBytes += n;
    if (this.jobs.size === 0) w.ref();
    return new Promise((resolve) => {
      this.jobs.set(job, { method, bytes: n, resolve });
      w.postMessage({ job, method, bytes }, [bytes.buffer as ArrayBuffer]);
    });
  }

  /** Jobs still out. */
  get pending(): number {
    return this.jobs.size;
  }

  /** Ends the thread; jobs still out get a bytes-only audit. */
  dispose(): void {
    this.disposed = true;
    this.fail('the session ended');
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(builtPaths.auditWorkerEntry(), {
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
      stdout: false,
      stderr: false,
    });
    w.unref();
    w.on('message', (m: { job: number; audit: ResultAudit }) => this.done(m.job, m.audit));
    w.on('error', (e) => this.fail(`the audit thread failed: ${e.message}`));
    w.on('exit', () => {
      if (this.worker === w) this.fail('the audit thread exited');
    });
    this.worker = w;
    return w;
  }

  private done(job: number, audit: ResultAudit): void {
    const j = this.jobs.get(job);
    if (!j) return;
    this.jobs.delete(job);
    this.queuedBytes -= j.bytes;
    if (this.jobs.size === 0) this.worker?.unref();
    j.resolve(audit);
  }

  /** Every job out settles with a bytes-only audit; the thread goes (a next job starts one). */
  private fail(why: string): void {
    const w = this.worker;
    this.worker = null;
    const jobs = [...this.jobs.values()];
    this.jobs.clear();
    this.queuedBytes = 0;
    if (w) void w.terminate();
    for (const j of jobs) j.resolve(bytesOnlyAudit(j.method, j.bytes, why));
  }
}
