/**
 * Streamed trace uploads (`trace:upload`): a file dropped on the browser-mode page arrives in
 * ordered chunks of at most 1 MiB and is appended to a temp file, never held whole in memory.
 *
 * Owns: one private temp directory, the open file handle of each upload in progress, and the
 * finished files (deleted by `dispose`, i.e. when the host stops). Fed by: the host's
 * `trace:upload` handler. Listens: the host, which opens a finished file like any path.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { err, ok, type Result } from '../../../shared/result.js';

/** A trace bigger than this is refused (the large traces are 1 GiB). */
export const MAX_UPLOAD_BYTES = 8 * 1024 * 1024 * 1024;
const MAX_OPEN_UPLOADS = 4;

interface Upload {
  file: string;
  fh: FileHandle;
  nextSeq: number;
  bytes: number;
  /** Serializes writes: a chunk is appended only after the previous one landed. */
  chain: Promise<unknown>;
}

export interface UploadChunk {
  uploadId: string;
  seq: number;
  chunkBase64?: string;
  text?: string;
  done: boolean;
  fileName?: string;
}

export class TraceUploads {
  private dir: string | null = null;
  private readonly open = new Map<string, Upload>();
  private count = 0;

  constructor(private readonly maxBytes = MAX_UPLOAD_BYTES) {}

  /** Appends one chunk; on `done` closes the file and returns its path. */
  async chunk(c: UploadChunk): Promise<Result<{ received: number; path: string | null }>> {
    let u = this.open.get(c.uploadId);
    if (!u) {
      if (c.seq !== 0) return err('EUPLOAD', `upload ${c.uploadId} is unknown (chunk ${c.seq})`);
      if (this.open.size >= MAX_OPEN_UPLOADS)
        return err('EBUSY', `at most ${MAX_OPEN_UPLOADS} uploads at a time`);
      this.count += 1;
      const file = path.join(this.directory(), `${this.count}-${safeName(c.fileName)}`);
      u = { file, fh: await open(file, 'wx'), nextSeq: 0, bytes: 0, chain: Promise.resolve() };
      this.open.set(c.uploadId, u);
    }
    const upload = u;
    if (c.seq !== upload.nextSeq) {
      await this.abort(c.uploadId);
      return err(
        'EUPLOAD',
        `chunk ${c.seq} out of order (expected ${upload.nextSeq}); upload dropped`,
      );
    }
    upload.nextSeq += 1;
    const data =
      c.chunkBase64 !== undefined
        ? Buffer.from(c.chunkBase64, 'base64')
        : Buffer.from(c.text ?? '', 'utf8');
    if (upload.bytes + data.length > this.maxBytes) {
      await this.abort(c.uploadId);
      return err('ETOOBIG', `the trace is over ${this.maxBytes} bytes; upload dropped`);
    }
    upload.bytes += data.length;
    const write = upload.chain.then(() => upload.fh.write(data));
    upload.chain = write.catch(() => {});
    try {
      await write;
    } catch (e) {
      await this.abort(c.uploadId);
      return err('EUPLOAD', `cannot write the upload: ${(e as Error).message}`);
    }
    if (!c.done) return ok({ received: upload.bytes, path: null });
    this.open.delete(c.uploadId);
    await upload.fh.close();
    return ok({ received: upload.bytes, path: upload.file });
  }

  private async abort(uploadId: string): Promise<void> {
    const u = this.open.get(uploadId);
    if (!u) return;
    this.open.delete(uploadId);
    await u.fh.close().catch(() => {});
    rmSync(u.file, { force: true });
  }

  private directory(): string {
    this.dir ??= mkdtempSync(path.join(tmpdir(), 'pipescope-uploads-'));
    return this.dir;
  }

  /** Closes uploads in progress and deletes every uploaded file. */
  async dispose(): Promise<void> {
    await Promise.all([...this.open.keys()].map((id) => this.abort(id)));
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = null;
  }
}

/** A file name reduced to safe characters (the original name is only a hint). */
export function safeName(name: string | undefined): string {
  const base = (name ?? 'trace.jsonl').split(/[\\/]/).pop() ?? 'trace.jsonl';
  const clean = base.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '');
  return (clean || 'trace.jsonl').slice(0, 100);
}
