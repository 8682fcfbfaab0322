import { describe, expect, it, vi } from 'vitest';
import type { DemoScenario } from '../../shared/demo-catalog';
import { makeInfo, makeSnapshot } from '../../test/fixtures/host-data';
import { connectStore } from './connect';
import { createFakeHost } from './fake-host';
import { createAppStore, selectionOf } from './store';

const DEMO: DemoScenario = {
  id: 'healthy',
  title: 'Healthy',
  lesson: 'good',
  implementation: 'sdk',
  tools: ['echo'],
  knobs: [],
  steps: [],
  probe: {},
  expected: { findings: [], metrics: [] },
};

async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
}

describe('connectStore', () => {
  it('loads the catalog and the sessions, then ingests events', async () => {
    const host = createFakeHost({
      'demo:list': () => ({ ok: true, value: [DEMO] }),
      'session:list': () => ({ ok: true, value: [makeInfo()] }),
    });
    const store = createAppStore();
    const dispose = connectStore(host, store);
    await settle();
    expect(store.getState().connection).toBe('connected');
    expect(store.getState().catalog).toEqual([DEMO]);
    expect(store.getState().sessions.map((s) => s.id)).toEqual(['s1']);
    host.emit({ type: 'snapshot', snapshot: makeSnapshot(1) });
    expect(store.getState().bySession.s1.seq).toBe(1);
    dispose();
    expect(host.listenerCount()).toBe(0);
  });

  it('reports a failed catalog as a failed connection', async () => {
    const host = createFakeHost({});
    const store = createAppStore();
    connectStore(host, store);
    await settle();
    expect(store.getState().connection).toBe('failed');
    expect(store.getState().connectionError).toContain('EUNAVAILABLE');
  });

  it('prefers a pushed session list over a later answer to session:list', async () => {
    let pushFirst: (() => void) | null = null;
    const host = createFakeHost({
      'demo:list': () => ({ ok: true, value: [] }),
      'session:list': () => {
        pushFirst?.();
        return { ok: true, value: [] };
      },
    });
    pushFirst = () => host.emit({ type: 'sessions', sessions: [makeInfo({ id: 'pushed' })] });
    const store = createAppStore();
    connectStore(host, store);
    await settle();
    expect(store.getState().sessions.map((s) => s.id)).toEqual(['pushed']);
  });
});

describe('store actions', () => {
  it('commits one set per ingested event', () => {
    const store = createAppStore();
    const listener = vi.fn();
    store.subscribe(listener);
    store.getState().ingest({ type: 'snapshot', snapshot: makeSnapshot(1) });
    store.getState().ingest({ type: 'snapshot', snapshot: makeSnapshot(2) });
    expect(listener).toHaveBeenCalledTimes(2);
  });

  it('keeps selections apart from snapshots', () => {
    const store = createAppStore();
    store.getState().openSession(makeInfo());
    store.getState().selectRequest('s1', 7);
    store.getState().ingest({ type: 'snapshot', snapshot: makeSnapshot(1) });
    expect(selectionOf(store.getState(), 's1').requestId).toBe(7);
    store.getState().selectFrame('s1', 3);
    expect(selectionOf(store.getState(), 's1')).toEqual({ requestId: 7, frameSeq: 3 });
    expect(store.getState().activeId).toBe('s1');
  });

  it('records the recovery probe result on the session', () => {
    const store = createAppStore();
    store.getState().openSession(makeInfo());
    store.getState().setRecovery('s1', { method: 'ping', ok: true, latencyMs: 1.5 });
    expect(store.getState().bySession.s1.recovery?.latencyMs).toBe(1.5);
    store.getState().ingest({ type: 'snapshot', snapshot: makeSnapshot(1) });
    expect(store.getState().bySession.s1.recovery?.ok).toBe(true);
  });
});

describe('notices', () => {
  it('keeps the last few and dismisses by id', () => {
    const store = createAppStore();
    for (let i = 0; i < 8; i += 1) store.getState().notify(`n${i}`);
    const notices = store.getState().notices;
    expect(notices.map((n) => n.text)).toEqual(['n3', 'n4', 'n5', 'n6', 'n7']);
    store.getState().dismissNotice(notices[0].id);
    expect(store.getState().notices).toHaveLength(4);
  });
});
