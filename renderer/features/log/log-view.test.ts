import { describe, expect, it } from 'vitest';
import type { FrameSummary } from '../../../shared/frames';
import { sentRecord } from '../../../shared/requests';
import { DEFAULT_VIEW, framesFloor, logViews, requestsFloor, updateLogView } from './log-view';

const frame = (seq: number, method?: string, dir: 'in' | 'out' = 'out'): FrameSummary => ({
  seq,
  dir,
  t: seq,
  offset: null,
  bytes: 10,
  kind: 'request',
  ...(method ? { method } : {}),
  preview: '',
  held: true,
});

describe('log view', () => {
  it('without Preserve log, a new initialize starts the lists afresh', () => {
    const frames = [frame(1, 'initialize'), frame(2, 'tools/list'), frame(9, 'initialize')];
    expect(framesFloor(DEFAULT_VIEW, frames)).toBe(9);
    expect(framesFloor({ ...DEFAULT_VIEW, preserve: true }, frames)).toBe(0);
    const requests = [
      sentRecord({ id: 1, method: 'initialize', sentAt: 1, requestBytes: 1 }),
      sentRecord({ id: 2, method: 'ping', sentAt: 5, requestBytes: 1 }),
    ];
    // One initialize (every session has one): nothing is hidden before it.
    expect(requestsFloor(DEFAULT_VIEW, requests)).toBe(1);
  });

  it('Clear wins over an older initialize, and the view is per session', () => {
    const frames = [frame(1, 'initialize'), frame(2)];
    expect(framesFloor({ ...DEFAULT_VIEW, framesFrom: 3 }, frames)).toBe(3);
    updateLogView('a', { framesFrom: 7 });
    updateLogView('b', { preserve: true });
    expect(logViews.getState().views.a).toMatchObject({ framesFrom: 7, preserve: false });
    expect(logViews.getState().views.b).toMatchObject({ framesFrom: 0, preserve: true });
  });
});
