import { describe, expect, it } from 'vitest';
import type { FrameSummary } from '../../../shared/frames.js';
import {
  EMPTY_FILTER,
  FRAME_KINDS,
  filterFrames,
  frameMatcher,
  isFilterActive,
  isProblemKind,
} from './frame-filter.js';

function frame(seq: number, patch: Partial<FrameSummary> = {}): FrameSummary {
  return {
    seq,
    dir: 'in',
    t: seq,
    offset: 0,
    bytes: 10,
    kind: 'response',
    preview: '{}',
    held: true,
    ...patch,
  };
}

const frames: FrameSummary[] = [
  frame(1, { dir: 'out', kind: 'request', id: 1, method: 'initialize' }),
  frame(2, { kind: 'response', id: 1 }),
  frame(3, { dir: 'out', kind: 'request', id: 'abc-7', method: 'tools/call' }),
  frame(4, { kind: 'notification', method: 'notifications/progress' }),
  frame(5, { kind: 'parse-error', problem: 'non-JSON line' }),
  frame(6, { kind: 'empty' }),
  frame(7, { kind: 'oversize', bytes: 0 }),
  frame(8, { kind: 'response', id: 12 }),
  frame(9, { kind: 'invalid', id: null }),
  frame(10, { kind: 'batch' }),
];

const seqs = (list: readonly FrameSummary[]): number[] => list.map((f) => f.seq);

describe('filterFrames', () => {
  it('returns the very same array when no filter is active (no copy)', () => {
    expect(filterFrames(frames, EMPTY_FILTER)).toBe(frames);
    expect(filterFrames(frames, { ...EMPTY_FILTER, text: '   ' })).toBe(frames);
  });

  it('filters by direction', () => {
    expect(seqs(filterFrames(frames, { ...EMPTY_FILTER, dir: 'out' }))).toEqual([1, 3]);
    expect(seqs(filterFrames(frames, { ...EMPTY_FILTER, dir: 'in' }))).toEqual([
      2, 4, 5, 6, 7, 8, 9, 10,
    ]);
  });

  it('filters by every kind, including oversize', () => {
    for (const kind of FRAME_KINDS) {
      const out = filterFrames(frames, { ...EMPTY_FILTER, kind });
      expect(out.length).toBeGreaterThan(0);
      expect(out.every((f) => f.kind === kind)).toBe(true);
    }
  });

  it('searches method case-insensitively as a substring', () => {
    expect(seqs(filterFrames(frames, { ...EMPTY_FILTER, text: 'TOOLS/' }))).toEqual([3]);
    expect(seqs(filterFrames(frames, { ...EMPTY_FILTER, text: 'notif' }))).toEqual([4]);
  });

  it('searches ids, numeric and string, bare or quoted', () => {
    expect(seqs(filterFrames(frames, { ...EMPTY_FILTER, text: '1' }))).toEqual([1, 2, 8]);
    expect(seqs(filterFrames(frames, { ...EMPTY_FILTER, text: 'abc' }))).toEqual([3]);
    expect(seqs(filterFrames(frames, { ...EMPTY_FILTER, text: '"abc-7"' }))).toEqual([3]);
    expect(seqs(filterFrames(frames, { ...EMPTY_FILTER, text: 'null' }))).toEqual([9]);
  });

  it('matches #seq exactly', () => {
    expect(seqs(filterFrames(frames, { ...EMPTY_FILTER, text: '#1' }))).toEqual([1]);
    expect(seqs(filterFrames(frames, { ...EMPTY_FILTER, text: '#10' }))).toEqual([10]);
  });

  it('combines direction, kind and text', () => {
    const filter = { dir: 'in', kind: 'response', text: '1' } as const;
    expect(seqs(filterFrames(frames, filter))).toEqual([2, 8]);
    expect(frameMatcher(filter)(frames[0])).toBe(false);
  });

  it('filters 100,000 frames in well under a frame budget', () => {
    const many = Array.from({ length: 100_000 }, (_, i) =>
      frame(i + 1, { method: i % 3 === 0 ? 'tools/call' : 'ping', id: i }),
    );
    const started = performance.now();
    const out = filterFrames(many, { ...EMPTY_FILTER, text: 'tools' });
    expect(out).toHaveLength(33_334);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe('isFilterActive / isProblemKind', () => {
  it('knows an empty filter', () => {
    expect(isFilterActive(EMPTY_FILTER)).toBe(false);
    expect(isFilterActive({ ...EMPTY_FILTER, dir: 'in' })).toBe(true);
    expect(isFilterActive({ ...EMPTY_FILTER, kind: 'batch' })).toBe(true);
    expect(isFilterActive({ ...EMPTY_FILTER, text: 'x' })).toBe(true);
  });

  it('highlights pollution, invalid and oversize only', () => {
    const problems = FRAME_KINDS.filter(isProblemKind);
    expect(problems.sort()).toEqual(['empty', 'invalid', 'oversize', 'parse-error']);
  });
});
