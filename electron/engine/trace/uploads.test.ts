import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { safeName, TraceUploads } from './uploads.js';

const uploads: TraceUploads[] = [];
afterEach(async () => {
  for (const u of uploads.splice(0)) await u.dispose();
});

function store(max?: number): TraceUploads {
  const u = new TraceUploads(max);
  uploads.push(u);
  return u;
}

describe('TraceUploads', () => {
  it('appends ordered chunks to a temp file and names it on the last one', async () => {
    const u = store();
    const a = await u.chunk({
      uploadId: 'up-000001',
      seq: 0,
      text: 'hello ',
      done: false,
      fileName: '../../etc/passwd',
    });
    expect(a).toEqual({ ok: true, value: { received: 6, path: null } });
    const b = await u.chunk({
      uploadId: 'up-000001',
      seq: 1,
      chunkBase64: Buffer.from('world').toString('base64'),
      done: true,
    });
    if (!b.ok || !b.value.path) throw new Error('no path');
    expect(readFileSync(b.value.path, 'utf8')).toBe('hello world');
    expect(b.value.path).toMatch(/pipescope-uploads-.*\/1-passwd$/);
    await u.dispose();
    expect(existsSync(b.value.path)).toBe(false);
  });

  it('drops an upload on a chunk out of order, an unknown id, or past the size limit', async () => {
    const u = store(8);
    expect(await u.chunk({ uploadId: 'up-000002', seq: 1, text: 'x', done: true })).toMatchObject({
      ok: false,
      error: { code: 'EUPLOAD' },
    });
    await u.chunk({ uploadId: 'up-000003', seq: 0, text: 'abc', done: false });
    expect(await u.chunk({ uploadId: 'up-000003', seq: 2, text: 'x', done: true })).toMatchObject({
      ok: false,
    });
    // Dropped: its next chunk is unknown now.
    expect(await u.chunk({ uploadId: 'up-000003', seq: 1, text: 'x', done: true })).toMatchObject({
      ok: false,
    });
    await u.chunk({ uploadId: 'up-000004', seq: 0, text: 'abcdef', done: false });
    expect(await u.chunk({ uploadId: 'up-000004', seq: 1, text: 'ghi', done: true })).toMatchObject(
      {
        ok: false,
        error: { code: 'ETOOBIG' },
      },
    );
  });

  it('reduces the dropped file name to safe characters', () => {
    expect(safeName('my trace (1).jsonl')).toBe('my_trace__1_.jsonl');
    expect(safeName('C:\\x\\..\\evil.jsonl')).toBe('evil.jsonl');
    expect(safeName('...')).toBe('trace.jsonl');
    expect(safeName(undefined)).toBe('trace.jsonl');
  });
});
