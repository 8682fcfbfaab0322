import { describe, expect, it } from 'vitest';
import type { FrameSummary } from '../../shared/frames.js';
import { emptyLiveMetrics } from '../../shared/metrics.js';
import type { ProcessSnapshot } from '../../shared/process.js';
import type { RequestRecord } from '../../shared/requests.js';
import { quietPoint, type SessionInfo, type SessionSnapshot } from '../../shared/session-info.js';
import { mergeSnapshots } from './snapshot-merge.js';

const request = (id: number, status: RequestRecord['status']): RequestRecord =>
  ({ id, method: 'tools/call', status }) as RequestRecord; // only the fields merge reads

function snap(seq: number, over: Partial<SessionSnapshot> = {}): SessionSnapshot {
  return {
    sessionId: 's',
    seq,
    info: { id: 's', title: `t${seq}` } as SessionInfo, // whole value: only identity matters
    metrics: { ...emptyLiveMetrics(), frames: seq },
    point: quietPoint(seq),
    requests: [],
    frames: [],
    framesSkipped: 0,
    frameSizes: [],
    stderr: '',
    stderrSkipped: 0,
    findings: [],
    ...over,
  };
}

const sample = (t: number): ProcessSnapshot => ({ t, rootPid: 7, processes: [], omitted: 0 });

describe('mergeSnapshots', () => {
  it('keeps the newest process sample, from the older snapshot when the newer has none', () => {
    expect(mergeSnapshots(snap(1, { process: sample(100) }), snap(2)).process?.t).toBe(100);
    const both = mergeSnapshots(
      snap(1, { process: sample(100) }),
      snap(2, { process: sample(200) }),
    );
    expect(both.process?.t).toBe(200);
    // A whole-state snapshot without a sample says there is none at that moment.
    const whole = mergeSnapshots(snap(1, { process: sample(100) }), snap(2, { replace: true }));
    expect(whole.process).toBeUndefined();
  });

  it('takes whole values from the newer and keeps every request delta (newest status wins)', () => {
    const merged = mergeSnapshots(
      snap(1, { requests: [request(1, 'pending'), request(2, 'pending')] }),
      snap(2, { requests: [request(1, 'completed')] }),
    );
    expect(merged.seq).toBe(2);
    expect(merged.info.title).toBe('t2');
    expect(merged.metrics.frames).toBe(2);
    expect(merged.requests.map((r) => [r.id, r.status])).toEqual([
      [1, 'completed'],
      [2, 'pending'],
    ]);
  });

  it('caps frames and stderr like the SessionManager and counts what the caps cut', () => {
    const frames = (n: number): FrameSummary[] =>
      Array.from({ length: n }, (_, i) => ({ seq: i }) as FrameSummary);
    const merged = mergeSnapshots(
      snap(1, {
        frames: frames(150),
        framesSkipped: 3,
        stderr: 'a'.repeat(40_000),
        stderrSkipped: 1,
      }),
      snap(2, { frames: frames(150), framesSkipped: 2, stderr: 'b'.repeat(40_000) }),
    );
    expect(merged.frames).toHaveLength(200);
    expect(merged.framesSkipped).toBe(3 + 2 + 100);
    expect(merged.stderr).toHaveLength(64 * 1024);
    expect(merged.stderrSkipped).toBe(1 + 80_000 - 64 * 1024);
    expect(merged.stderr.startsWith('a')).toBe(true);
  });
});

describe('mergeSnapshots over the caps', () => {
  const frame = (seq: number): FrameSummary =>
    ({
      seq,
      dir: 'in',
      t: seq,
      offset: 0,
      bytes: 1,
      kind: 'notification',
      preview: '',
      held: true,
    }) as FrameSummary;

  it('keeps the newest frames and stderr, and counts what it cut', () => {
    const older = snap(1, {
      frames: Array.from({ length: 150 }, (_, i) => frame(i + 1)),
      stderr: 'a'.repeat(40_000),
    });
    const newer = snap(2, {
      frames: Array.from({ length: 150 }, (_, i) => frame(i + 151)),
      stderr: 'b'.repeat(40_000),
      framesSkipped: 5,
    });
    const merged = mergeSnapshots(older, newer);
    expect(merged.frames).toHaveLength(200);
    expect(merged.frames[0].seq).toBe(101);
    expect(merged.frames.at(-1)?.seq).toBe(300);
    expect(merged.framesSkipped).toBe(105);
    expect(merged.stderr.endsWith('b'.repeat(40_000))).toBe(true);
    expect(merged.stderr.length + merged.stderrSkipped).toBe(80_000);
  });
});
