import { describe, expect, it } from 'vitest';
import { HOST_CHANNELS, type HostChannel, parseHostCall } from '../../../shared/host-api.js';
import { ok } from '../../../shared/result.js';
import { HandlerRegistry } from './handler-registry.js';
import { SessionManager } from './session-manager.js';

function call(channel: HostChannel, payload: unknown) {
  const parsed = parseHostCall(channel, payload);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

describe('HandlerRegistry', () => {
  it('takes one handler per channel and names the channels without one', () => {
    const r = new HandlerRegistry();
    r.on('demo:list', async () => ok([]));
    expect(() => r.on('demo:list', async () => ok([]))).toThrow(/demo:list has a handler/);
    expect(r.missing()).not.toContain('demo:list');
    expect(r.missing()).toHaveLength(Object.keys(HOST_CHANNELS).length - 1);
    expect(() => r.assertComplete()).toThrow(/no handler for .*session:start/);
  });

  it('dispatches a call to its handler with the validated payload (defaults filled in)', async () => {
    const r = new HandlerRegistry();
    const seen: unknown[] = [];
    r.on('config:import', async (p) => {
      seen.push(p);
      return ok({ format: p.format, servers: [], skipped: [] });
    });
    const result = await r.dispatch(call('config:import', { text: '{}' }));
    expect(result.ok).toBe(true);
    expect(seen).toEqual([{ format: 'auto', text: '{}' }]);
  });

  it('answers a throwing handler with EINTERNAL and a channel without one with EBADCHANNEL', async () => {
    const r = new HandlerRegistry();
    r.on('demo:list', async () => {
      throw new Error('boom');
    });
    expect(await r.dispatch(call('demo:list', {}))).toEqual({
      ok: false,
      error: { code: 'EINTERNAL', message: 'boom' },
    });
    expect(await r.dispatch(call('session:list', {}))).toMatchObject({
      ok: false,
      error: { code: 'EBADCHANNEL' },
    });
  });
});

describe('SessionManager', () => {
  it('has exactly one handler for every HostApi channel (it would not construct otherwise)', async () => {
    const manager = new SessionManager();
    try {
      expect((await manager.handle('session:list', {})).ok).toBe(true);
      expect(await manager.handle('session:stop', { sessionId: 'nope' })).toMatchObject({
        ok: false,
        error: { code: 'ENOSESSION' },
      });
      expect(await manager.handle('nope:nope', {})).toMatchObject({
        ok: false,
        error: { code: 'EBADCHANNEL' },
      });
      expect(await manager.handle('session:stop', {})).toMatchObject({
        ok: false,
        error: { code: 'EINVAL' },
      });
    } finally {
      await manager.stopAll();
    }
  });
});
