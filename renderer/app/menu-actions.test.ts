import { describe, expect, it } from 'vitest';
import { makeInfo } from '../../test/fixtures/host-data';
import { createFakeHost } from '../store/fake-host';
import { createAppStore } from '../store/store';
import { connectMenuEvents, handleMenuEvent } from './menu-actions';

const imported = { format: 'claude-desktop' as const, servers: [], skipped: [] };

describe('menu events in the renderer', () => {
  it('new-session shows the start tab', async () => {
    const store = createAppStore();
    store.getState().openSession(makeInfo());
    await handleMenuEvent({ type: 'menu', action: 'new-session' }, createFakeHost(), store);
    expect(store.getState().activeId).toBeNull();
  });

  it('import-config imports the text and lists it on the start screen', async () => {
    const host = createFakeHost({ 'config:import': () => ({ ok: true, value: imported }) });
    const store = createAppStore();
    store.getState().openSession(makeInfo());
    const unsubscribe = connectMenuEvents(host, store);
    host.emit({ type: 'menu', action: 'import-config', fileName: '/c/cfg.json', text: '{}' });
    await Promise.resolve();
    await Promise.resolve();
    expect(host.calls).toEqual([
      {
        channel: 'config:import',
        request: { format: 'auto', text: '{}', fileName: '/c/cfg.json' },
      },
    ]);
    expect(store.getState().imported).toEqual({ fileName: '/c/cfg.json', result: imported });
    expect(store.getState().activeId).toBeNull();
    unsubscribe();
    expect(host.listenerCount()).toBe(0);
  });

  it('open-trace opens the trace session and shows it', async () => {
    const info = makeInfo({ id: 'trace-1' });
    const host = createFakeHost({ 'trace:open': () => ({ ok: true, value: info }) });
    const store = createAppStore();
    await handleMenuEvent({ type: 'menu', action: 'open-trace', path: '/t/a.jsonl' }, host, store);
    expect(store.getState().activeId).toBe('trace-1');
  });

  it('save-trace records the active session, or says where it already records', async () => {
    const host = createFakeHost({
      'session:record': (r) => ({ ok: true, value: { path: r.path ?? null } }),
    });
    const store = createAppStore();
    await handleMenuEvent({ type: 'menu', action: 'save-trace', path: '/t/x.jsonl' }, host, store);
    expect(host.calls).toEqual([]);
    expect(store.getState().notices.at(-1)?.level).toBe('info');

    store.getState().openSession(makeInfo({ id: 's1' }));
    await handleMenuEvent({ type: 'menu', action: 'save-trace', path: '/t/x.jsonl' }, host, store);
    expect(host.calls).toEqual([
      {
        channel: 'session:record',
        request: { sessionId: 's1', record: true, path: '/t/x.jsonl', overwrite: true },
      },
    ]);

    store
      .getState()
      .openSession(
        makeInfo({ id: 's2', recording: { path: '/t/y.jsonl', bytes: 5, active: true } }),
      );
    await handleMenuEvent({ type: 'menu', action: 'save-trace', path: '/t/z.jsonl' }, host, store);
    expect(host.calls).toHaveLength(1);
    expect(store.getState().notices.at(-1)?.text).toContain('/t/y.jsonl');
  });
});
