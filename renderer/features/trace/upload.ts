/**
 * Streaming a dropped trace to the host (`trace:upload`): the file is read in the page with
 * `file.slice()` one chunk at a time (never whole), each chunk sent as base64 and awaited before
 * the next, so memory stays at one chunk whatever the trace's size.
 */
import type { ChannelRequest } from '../../../shared/host-api';
import type { Result } from '../../../shared/result';
import type { TraceUploadAck } from '../../../shared/trace-api';

/**
 * shared/trace-api.ts UPLOAD_CHUNK_BYTES (not imported: that module carries zod schemas the
 * page never needs; upload.test.ts checks they agree).
 */
export const CHUNK_BYTES = 1024 * 1024;

export interface ChunkPlan {
  seq: number;
  start: number;
  end: number;
  done: boolean;
}

/** The chunks of a file of `size` bytes; an empty file is one empty, final chunk. */
export function planChunks(size: number, chunkBytes = CHUNK_BYTES): ChunkPlan[] {
  const plans: ChunkPlan[] = [];
  const n = Math.max(1, Math.ceil(size / chunkBytes));
  for (let seq = 0; seq < n; seq++) {
    const start = seq * chunkBytes;
    plans.push({ seq, start, end: Math.min(size, start + chunkBytes), done: seq === n - 1 });
  }
  return plans;
}

/** Base64 of bytes, built in slices (String.fromCharCode on a whole MiB overflows the stack). */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  const SLICE = 0x8000;
  for (let i = 0; i < bytes.length; i += SLICE) {
    binary += String.fromCharCode(...bytes.subarray(i, i + SLICE));
  }
  return btoa(binary);
}

/** A random id the host accepts (`[A-Za-z0-9_-]{8,64}`). */
export function newUploadId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return bytesToBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export interface UploadSource {
  readonly name: string;
  readonly size: number;
  slice(start: number, end: number): { arrayBuffer(): Promise<ArrayBuffer> };
}

export type SendChunk = (chunk: ChannelRequest<'trace:upload'>) => Promise<Result<TraceUploadAck>>;

/** Sends `file` chunk by chunk; resolves with the last answer (it names the opened trace). */
export async function uploadTrace(
  file: UploadSource,
  send: SendChunk,
  onProgress: (sent: number, total: number) => void = () => {},
  chunkBytes = CHUNK_BYTES,
): Promise<Result<TraceUploadAck>> {
  const uploadId = newUploadId();
  let last: Result<TraceUploadAck> = {
    ok: false,
    error: { code: 'EUPLOAD', message: 'nothing sent' },
  };
  for (const plan of planChunks(file.size, chunkBytes)) {
    const bytes = new Uint8Array(await file.slice(plan.start, plan.end).arrayBuffer());
    last = await send({
      uploadId,
      seq: plan.seq,
      chunkBase64: bytesToBase64(bytes),
      done: plan.done,
      fileName: file.name,
    });
    if (!last.ok) return last;
    onProgress(plan.end, file.size);
  }
  return last;
}
