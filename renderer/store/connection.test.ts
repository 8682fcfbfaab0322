import { describe, expect, it } from 'vitest';
import { createAppStore } from './store';

describe('connection events from the host', () => {
  it('a dropped link reads as reconnecting, and connected again once it is back', () => {
    const store = createAppStore();
    store.getState().setCatalog([]);
    store.getState().setConnection('connected');
    store.getState().ingest({ type: 'connection', state: 'disconnected' });
    expect(store.getState().connection).toBe('reconnecting');
    store.getState().ingest({ type: 'connection', state: 'connected' });
    expect(store.getState().connection).toBe('connected');
  });

  it('the first open before the catalog loaded does not claim to be connected', () => {
    const store = createAppStore();
    store.getState().ingest({ type: 'connection', state: 'connected' });
    expect(store.getState().connection).toBe('connecting');
  });
});
