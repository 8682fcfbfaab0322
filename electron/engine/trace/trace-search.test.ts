/** A trace's frames for the viewer and the payload search: by seq, and walked from a seq. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HEADER, writeTrace } from '../../../test/fixtures/trace-fixtures.js';
import { needleOf, searchFrames } from '../session/frame-search.js';
import { TraceReader } from './reader.js';
import { frameEventOf, traceSearchSource } from './trace-search.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pipescope-trace-search-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function frame(seq: number, text: string | null): object {
  const base = {
    t: seq,
    type: 'frame',
    dir: 'in',
    seq,
    bytes: 40,
    kind: 'notification',
    offset: 0,
  };
  return text === null ? { ...base, truncated: true, sha256: null } : { ...base, text };
}

describe('trace search', () => {
  it('walks the recorded frames from a seq and finds a text; a frame without text is skipped', async () => {
    const lines: object[] = [HEADER];
    for (let seq = 1; seq <= 300; seq++)
      lines.push(
        seq === 250
          ? frame(seq, '{"text":"the Needle here"}')
          : frame(seq, seq === 7 ? null : `{"n":${seq}}`),
      );
    lines.push({ t: 400, type: 'state', state: 'stopped', pid: null });
    const file = writeTrace(path.join(dir, 't.jsonl'), lines);
    const reader = await TraceReader.open(file);
    try {
      const frameLines = Uint32Array.from({ length: reader.count }, (_, i) => i).filter(
        (i) => reader.type(i) === 'frame',
      );
      const source = traceSearchSource(reader, frameLines);
      expect(await source.range()).toEqual({ first: 1, last: 300 });
      const page = await searchFrames(source, {
        needle: needleOf('needle', false),
        from: null,
        maxHits: 10,
        budgetMs: 1000,
        isCurrent: () => true,
      });
      expect(page.hits.map((h) => [h.seq, h.offset])).toEqual([[250, 13]]);
      expect(page.previewOnly).toBe(1); // frame 7: recorded without its text
      expect(page.next).toBeNull();
      const from = await searchFrames(source, {
        needle: needleOf('"n":2', true),
        from: { seq: 200, offset: 0 },
        maxHits: 3,
        budgetMs: 1000,
        isCurrent: () => true,
      });
      expect(from.hits.map((h) => h.seq)).toEqual([200, 201, 202]);
      expect(from.next).toEqual({ seq: 203, offset: 0 });
      expect(await frameEventOf(reader, frameLines, 7)).toMatch(/without its text/);
      expect(await frameEventOf(reader, frameLines, 999)).toMatch(/not in this trace/);
    } finally {
      await reader.close();
    }
  });
});
