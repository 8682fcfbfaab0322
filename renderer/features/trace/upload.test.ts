import { describe, expect, it } from 'vitest';
import { UPLOAD_CHUNK_BYTES } from '../../../shared/trace-api';
import { bytesToBase64, CHUNK_BYTES, newUploadId, planChunks, uploadTrace } from './upload';

describe('upload chunking', () => {
  it('agrees with the host’s chunk limit', () => {
    expect(CHUNK_BYTES).toBe(UPLOAD_CHUNK_BYTES);
  });

  it('plans ordered chunks that cover the file exactly, the last one marked done', () => {
    expect(planChunks(0)).toEqual([{ seq: 0, start: 0, end: 0, done: true }]);
    expect(planChunks(10, 4)).toEqual([
      { seq: 0, start: 0, end: 4, done: false },
      { seq: 1, start: 4, end: 8, done: false },
      { seq: 2, start: 8, end: 10, done: true },
    ]);
    const big = planChunks(3 * CHUNK_BYTES + 1);
    expect(big).toHaveLength(4);
    expect(big.every((c) => c.end - c.start <= CHUNK_BYTES)).toBe(true);
  });

  it('encodes base64 like Node, also past the String.fromCharCode slice', () => {
    const bytes = new Uint8Array(100_000).map((_, i) => (i * 7) % 256);
    const back = Uint8Array.from(atob(bytesToBase64(bytes)), (c) => c.charCodeAt(0));
    expect(back).toEqual(bytes);
    expect(bytesToBase64(new TextEncoder().encode('{}\n'))).toBe('e30K');
    expect(newUploadId()).toMatch(/^[A-Za-z0-9_-]{8,64}$/);
  });

  it('sends every chunk in order with one upload id and stops at the first error', async () => {
    const text = 'x'.repeat(10);
    const file = {
      name: 'a.jsonl',
      size: text.length,
      slice: (start: number, end: number) => ({
        arrayBuffer: async () => new TextEncoder().encode(text.slice(start, end)).buffer,
      }),
    };
    const sent: { uploadId: string; seq: number; done: boolean; data: string }[] = [];
    const progress: number[] = [];
    const r = await uploadTrace(
      file,
      async (c) => {
        sent.push({
          uploadId: c.uploadId,
          seq: c.seq,
          done: c.done,
          data: atob(c.chunkBase64 ?? ''),
        });
        return { ok: true, value: { received: 0, session: null } };
      },
      (n) => progress.push(n),
      4,
    );
    expect(r.ok).toBe(true);
    expect(sent.map((s) => s.data).join('')).toBe(text);
    expect(sent.map((s) => [s.seq, s.done])).toEqual([
      [0, false],
      [1, false],
      [2, true],
    ]);
    expect(new Set(sent.map((s) => s.uploadId)).size).toBe(1);
    expect(progress).toEqual([4, 8, 10]);

    let calls = 0;
    const failed = await uploadTrace(
      file,
      async () => {
        calls += 1;
        return { ok: false, error: { code: 'EUPLOAD', message: 'disk full' } };
      },
      () => {},
      4,
    );
    expect(failed).toMatchObject({ ok: false, error: { message: 'disk full' } });
    expect(calls).toBe(1);
  });
});
