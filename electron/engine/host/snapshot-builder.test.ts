import { describe, expect, it } from 'vitest';
import type { FrameSummary } from '../../../shared/frames.js';
import { emptyLiveMetrics } from '../../../shared/metrics.js';
import type { SessionInfo } from '../../../shared/session-info.js';
import { processSample, processSnapshot } from '../../../test/fixtures/process-fixtures.js';
import { cutPreview, PREVIEW_CHARS, restingMetrics, SnapshotBuilder } from './snapshot-builder.js';

function frame(seq: number, over: Partial<FrameSummary> = {}): FrameSummary {
  return {
    seq,
    dir: 'in',
    t: seq,
    offset: 0,
    bytes: 100,
    kind: 'notification',
    preview: '{}',
    held: true,
    ...over,
  };
}

const info = { id: 's1', title: 't' } as SessionInfo;

function build(b: SnapshotBuilder) {
  return b.build(info, emptyLiveMetrics(), []);
}

describe('SnapshotBuilder', () => {
  it('carries only the newest process sample since the last snapshot, once', () => {
    const b = new SnapshotBuilder();
    build(b);
    expect(b.dirty).toBe(false);
    b.setProcess(processSnapshot(100, [processSample()]));
    b.setProcess(processSnapshot(200, [processSample()]));
    expect(b.dirty).toBe(true);
    expect(build(b).process?.t).toBe(200);
    const next = build(b);
    expect(next.process).toBeUndefined();
    expect('process' in next).toBe(false);
  });

  it('passes every frame through when fewer than the cap arrive', () => {
    const b = new SnapshotBuilder(5, 5);
    for (let i = 1; i <= 3; i += 1) b.addFrame(frame(i));
    const snap = build(b);
    expect(snap.frames.map((f) => f.seq)).toEqual([1, 2, 3]);
    expect(snap.framesSkipped).toBe(0);
    expect(snap.seq).toBe(1);
    expect(b.dirty).toBe(false);
    expect(build(b).frames).toEqual([]);
  });

  it('keeps the newest frames in a flood and counts the rest', () => {
    const b = new SnapshotBuilder(4, 2);
    for (let i = 1; i <= 1000; i += 1) b.addFrame(frame(i));
    const snap = build(b);
    expect(snap.frames.map((f) => f.seq)).toEqual([997, 998, 999, 1000]);
    expect(snap.framesSkipped).toBe(996);
    expect(snap.frames.length + snap.framesSkipped).toBe(1000);
  });

  it('keeps evicted requests, responses and problems (up to a cap) in seq order', () => {
    const b = new SnapshotBuilder(3, 2);
    b.addFrame(frame(1, { kind: 'response' }));
    for (let i = 2; i <= 50; i += 1) b.addFrame(frame(i));
    b.addFrame(frame(51, { kind: 'parse-error', problem: 'banner' }));
    b.addFrame(frame(52, { kind: 'request', dir: 'out' }));
    for (let i = 53; i <= 99; i += 1) b.addFrame(frame(i));
    const snap = build(b);
    expect(snap.frames.map((f) => f.seq)).toEqual([1, 51, 97, 98, 99]);
    expect(snap.frames.length + snap.framesSkipped).toBe(99);
  });

  it('asks for the previews of the frames it sends, and of a notable one as it leaves the ring', () => {
    const asked: number[] = [];
    const b = new SnapshotBuilder(2, 2, (f) => {
      asked.push(f.seq);
      if (f.preview === '') f.preview = `p${f.seq}`; // as FrameStore.previewOf caches it
      return f.preview;
    });
    b.addFrame(frame(1, { kind: 'response', preview: '' }));
    b.addFrame(frame(2, { preview: '' }));
    expect(asked).toEqual([]); // nothing decoded per frame
    b.addFrame(frame(3, { preview: '' })); // 1 leaves the ring, kept as notable
    expect(asked).toEqual([1]);
    for (let i = 4; i <= 9; i += 1) b.addFrame(frame(i, { preview: '' })); // skipped: never asked
    const snap = build(b);
    expect(snap.frames.map((f) => [f.seq, f.preview])).toEqual([
      [1, 'p1'],
      [8, 'p8'],
      [9, 'p9'],
    ]);
    expect(asked.filter((s) => s >= 2 && s <= 7)).toEqual([]);
  });

  it('cuts long previews, never inside a surrogate pair', () => {
    const b = new SnapshotBuilder(2, 0);
    b.addFrame(frame(1, { preview: 'x'.repeat(240) }));
    expect(build(b).frames[0].preview).toHaveLength(PREVIEW_CHARS);
    const emoji = `${'a'.repeat(PREVIEW_CHARS - 1)}😀tail`;
    expect(cutPreview(emoji)).toBe('a'.repeat(PREVIEW_CHARS - 1));
    expect(cutPreview('short')).toBe('short');
  });

  it('reduces frame sizes to the largest per direction, over every frame', () => {
    const b = new SnapshotBuilder(2, 0);
    for (let i = 1; i <= 500; i += 1) b.addFrame(frame(i, { bytes: i === 400 ? 9000 : 10 }));
    b.addFrame(frame(501, { dir: 'out', bytes: 50 }));
    const snap = build(b);
    expect(snap.frameSizes).toEqual([
      { t: 400, bytes: 9000, dir: 'in' },
      { t: 501, bytes: 50, dir: 'out' },
    ]);
    expect(build(b).frameSizes).toEqual([]);
  });

  it('carries changed requests once and caps stderr, counting the rest', () => {
    const b = new SnapshotBuilder();
    b.addStderr('a'.repeat(64 * 1024 - 2));
    b.addStderr('bcdef');
    const snap = build(b);
    expect(snap.stderr.length).toBe(64 * 1024);
    expect(snap.stderrSkipped).toBe(3);
    const next = build(b);
    expect(next.stderr).toBe('');
    expect(next.stderrSkipped).toBe(0);
    expect(next.seq).toBe(2);
  });
});

describe('restingMetrics (a server that is over)', () => {
  it('has no rates and nothing in flight, keeps the counts, and stops the clock', () => {
    const live = {
      ...emptyLiveMetrics(),
      stdoutBytes: 35_000,
      stdoutRate: 35_000,
      stderrRate: 20,
      inFlightFrameBytes: 32_804,
      msSinceLastStdoutByte: 4200,
      readingStdout: true,
      stdinPendingBytes: 10,
      stdinPendingWaitMs: 5,
      requestsInFlight: 1,
      elapsedMs: 9000,
      partialBytesAtEof: 32_804,
    };
    expect(restingMetrics(live, 2500)).toEqual({
      ...live,
      stdoutRate: 0,
      stderrRate: 0,
      inFlightFrameBytes: 0,
      readingStdout: false,
      stdinPendingBytes: 0,
      stdinPendingWaitMs: 0,
      requestsInFlight: 0,
      elapsedMs: 2500,
    });
  });

  it('lets a snapshot repeat a given chart point', () => {
    const b = new SnapshotBuilder();
    const point = {
      t: 1,
      stdoutRate: 0,
      stderrRate: 0,
      dispatcherDepth: 0,
      dispatcherWaitMs: 0,
      largestFrameBytes: 0,
    };
    const s = b.build(info, { ...emptyLiveMetrics(), elapsedMs: 50, stdoutRate: 9 }, [], point);
    expect(s.point).toBe(point);
  });
});
