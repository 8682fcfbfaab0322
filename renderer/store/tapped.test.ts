// Tapped sessions in the store: a closed tab is hidden here (the host still lists the session),
// and the handshake marker follows the host's initialize.
import { describe, expect, it } from 'vitest';
import type { SessionInfo, TapInfo } from '../../shared/session-info';
import { makeInfo, makeRequest, makeSnapshot } from '../../test/fixtures/host-data';
import { emptySessionData } from './reducers';
import { handshakeState, hostHandshake } from './selectors';
import { createAppStore } from './store';

const TAP: TapInfo = {
  name: 'demo',
  host: { label: 'Test Host', pid: 10, command: null },
  tapPid: 11,
  server: { command: 'node', args: ['srv.js'], cwd: '/' },
};

function tapped(id: string, over: Partial<SessionInfo> = {}): SessionInfo {
  return makeInfo({ id, title: `Test Host → ${id}`, demoId: null, tap: TAP, ...over });
}

describe('hideSession', () => {
  it('takes the tab away and keeps it away through later lists and snapshots', () => {
    const store = createAppStore();
    const own = makeInfo({ id: 'own' });
    store.getState().ingest({ type: 'sessions', sessions: [own, tapped('t1')] });
    store.getState().setActive('t1');
    store.getState().hideSession('t1');
    let s = store.getState();
    expect(s.sessions.map((x) => x.id)).toEqual(['own']);
    expect(s.bySession.t1).toBeUndefined();
    expect(s.activeId).toBe('own');
    // The host goes on listing it, and its snapshots go on arriving.
    store.getState().ingest({ type: 'sessions', sessions: [own, tapped('t1'), tapped('t2')] });
    store.getState().ingest({
      type: 'snapshot',
      snapshot: { ...makeSnapshot(1), sessionId: 't1', info: tapped('t1') },
    });
    s = store.getState();
    expect(s.sessions.map((x) => x.id)).toEqual(['own', 't2']);
    expect(s.bySession.t1).toBeUndefined();
    expect(s.hiddenIds).toEqual(['t1']);
  });
});

describe('handshake of a tapped session', () => {
  it('is the host’s initialize until the server info is known', () => {
    const data = emptySessionData(tapped('t1'));
    expect(hostHandshake(data)).toBeNull();
    expect(handshakeState(data)).toBe('pending');
    const pending = makeRequest({ id: 1, method: 'initialize' });
    const withInit = { ...data, requests: new Map([[1, pending]]) };
    expect(hostHandshake(withInit)).toBe('pending');
    expect(handshakeState(withInit)).toBe('pending');
    const done = {
      ...withInit,
      requests: new Map([[1, { ...pending, status: 'completed' as const }]]),
    };
    expect(hostHandshake(done)).toBe('completed');
    expect(handshakeState(done)).toBe('done');
    // A session of the app's own waits for its server info, whatever its table holds.
    expect(handshakeState({ ...done, info: makeInfo() })).toBe('pending');
  });
});
