import { describe, expect, it } from 'vitest';
import { makeInfo } from '../../../test/fixtures/host-data';
import { closePlan, otherSessions, stoppedSessions } from './session-closing';

const tap = {
  name: 'fs',
  host: { label: 'Cursor', pid: 1, command: null },
  tapPid: 2,
  server: { command: 'node', args: [], cwd: '/' },
};
const trace = {
  path: '/t.jsonl',
  fileName: 't.jsonl',
  fileBytes: 1,
  recordedAt: 0,
  durationMs: 1,
  t: 1,
  reconstructed: false,
  skippedLines: 0,
  markers: [],
  markersSkipped: 0,
};

describe('stoppedSessions', () => {
  it('takes the live sessions whose server is over, not traces or a host’s tapped ones', () => {
    const sessions = [
      makeInfo({ id: 'run', state: 'running' }),
      makeInfo({ id: 'done', state: 'stopped' }),
      makeInfo({ id: 'bad', state: 'failed' }),
      makeInfo({ id: 'going', state: 'stopping' }),
      makeInfo({ id: 'trace', state: 'stopped', trace }),
      makeInfo({ id: 'tapped', state: 'stopped', tap }),
      makeInfo({ id: 'replay', state: 'stopped', tap: { ...tap, replay: true } }),
    ];
    expect(stoppedSessions(sessions).map((s) => s.id)).toEqual(['done', 'bad', 'replay']);
  });
});

describe('otherSessions and closePlan', () => {
  it('keeps the active one, and only hides a host’s tapped sessions', () => {
    const sessions = [makeInfo({ id: 'a' }), makeInfo({ id: 'b', tap }), makeInfo({ id: 'c' })];
    const others = otherSessions(sessions, 'a');
    expect(others.map((s) => s.id)).toEqual(['b', 'c']);
    expect(closePlan(others)).toEqual({ hide: ['b'], close: ['c'] });
    expect(otherSessions(sessions, null)).toHaveLength(3);
  });
});
