import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { IPC_CHANNELS } from '../../shared/bridge-protocol.js';
import type { HostCall, HostEvent } from '../../shared/host-api.js';
import { ok, type Result } from '../../shared/result.js';
import {
  createInvokeHandler,
  type EventTargetLike,
  type FrameLike,
  forwardHostEvents,
  type InvokeEventLike,
  type IpcMainLike,
  type ManagerLike,
  registerInvokeHandler,
  senderProblem,
  sendMenuEvent,
} from './ipc-registry.js';

const { invoke: INVOKE_CHANNEL, event: EVENT_CHANNEL } = IPC_CHANNELS;
const WINDOW_ID = 7;
const mainFrame: FrameLike = { url: 'app://pipescope/index.html', parent: null };

function event(overrides: Partial<InvokeEventLike> = {}): InvokeEventLike {
  return { sender: { id: WINDOW_ID }, senderFrame: mainFrame, ...overrides };
}

class FakeManager implements ManagerLike {
  calls: { channel: unknown; payload: unknown }[] = [];
  answer: Result<unknown> = ok('answered');
  throwWith: Error | null = null;
  async dispatch(call: HostCall): Promise<Result<unknown>> {
    this.calls.push({ channel: call.channel, payload: call.payload });
    if (this.throwWith) throw this.throwWith;
    return this.answer;
  }
}

function setup() {
  const manager = new FakeManager();
  const handler = createInvokeHandler(manager, () => WINDOW_ID);
  return { manager, handler };
}

describe('senderProblem', () => {
  it('accepts the main frame of our window on the app origin', () => {
    expect(senderProblem(event(), WINDOW_ID)).toBeNull();
    expect(
      senderProblem(event({ senderFrame: { url: 'app://pipescope/', parent: null } }), WINDOW_ID),
    ).toBeNull();
  });

  it.each([
    ['https://evil.test/'],
    ['file:///work/main/dist/renderer/index.html'],
    ['app://evil/index.html'],
    ['app://pipescope:8080/index.html'],
    ['app://user@pipescope/index.html'],
    ['http://127.0.0.1:5173/'],
    ['devtools://devtools/bundled/inspector.html'],
    ['about:blank'],
    [''],
  ])('rejects a main frame at %s', (url) => {
    expect(senderProblem(event({ senderFrame: { url, parent: null } }), WINDOW_ID)).toMatch(
      /origin/,
    );
  });

  it('rejects a subframe even on our origin', () => {
    const sub: FrameLike = { url: 'app://pipescope/index.html', parent: mainFrame };
    expect(senderProblem(event({ senderFrame: sub }), WINDOW_ID)).toMatch(/main frame/);
  });

  it('rejects a missing (navigated or destroyed) frame', () => {
    expect(senderProblem(event({ senderFrame: null }), WINDOW_ID)).toMatch(/gone/);
  });

  it('rejects other web contents and the case with no window', () => {
    expect(senderProblem(event({ sender: { id: 99 } }), WINDOW_ID)).toMatch(/not the app window/);
    expect(senderProblem(event(), null)).toMatch(/no app window/);
  });
});

describe('the invoke handler', () => {
  it('passes a valid call, with its parsed payload, to the manager', async () => {
    const { manager, handler } = setup();
    const result = await handler(event(), 'session:stop', { sessionId: 's1' });
    expect(result).toEqual({ ok: true, value: 'answered' });
    expect(manager.calls).toEqual([{ channel: 'session:stop', payload: { sessionId: 's1' } }]);
  });

  it('hands the manager the schema output (defaults filled in)', async () => {
    const { manager, handler } = setup();
    await handler(event(), 'config:import', { text: '{}' });
    expect(manager.calls[0].payload).toEqual({ format: 'auto', text: '{}' });
  });

  it('refuses a foreign sender before looking at the payload', async () => {
    const { manager, handler } = setup();
    const foreign = event({ senderFrame: { url: 'https://evil.test/', parent: null } });
    const result = await handler(foreign, 'session:start', { server: { command: 'sh' } });
    expect(result).toMatchObject({ ok: false, error: { code: 'EFORBIDDEN' } });
    expect(manager.calls).toHaveLength(0);
  });

  it('refuses a subframe sender', async () => {
    const { manager, handler } = setup();
    const sub = event({ senderFrame: { url: 'app://pipescope/index.html', parent: mainFrame } });
    expect(await handler(sub, 'demo:list', {})).toMatchObject({
      ok: false,
      error: { code: 'EFORBIDDEN' },
    });
    expect(manager.calls).toHaveLength(0);
  });

  it.each([[42], [null], [undefined], [{ toString: () => 'demo:list' }]])(
    'answers a non-string channel %j with EBADCHANNEL',
    async (channel) => {
      const { manager, handler } = setup();
      expect(await handler(event(), channel, {})).toMatchObject({
        ok: false,
        error: { code: 'EBADCHANNEL' },
      });
      expect(manager.calls).toHaveLength(0);
    },
  );

  it.each([['session:explode'], ['__proto__'], ['constructor'], ['toString']])(
    'answers unknown channel %s with EBADCHANNEL',
    async (channel) => {
      const { manager, handler } = setup();
      expect(await handler(event(), channel, {})).toMatchObject({
        ok: false,
        error: { code: 'EBADCHANNEL' },
      });
      expect(manager.calls).toHaveLength(0);
    },
  );

  it.each([
    ['session:stop', {}],
    ['session:stop', { sessionId: '' }],
    ['session:stop', null],
    ['session:stop', 'session-1'],
    ['session:start', { server: { command: '' } }],
    ['session:start', { server: { command: 'node', args: 'not-an-array' } }],
    ['session:start', { demo: { id: 'healthy' }, maxFrameBytes: -1 }],
    ['frame:page', { sessionId: 's', seq: 1, offset: 0, length: 1024 * 1024 + 1 }],
    ['request:cancel', { sessionId: 's', requestId: { nested: true } }],
  ])('returns EINVAL (never throws) for a bad %s payload', async (channel, payload) => {
    const { manager, handler } = setup();
    const result = await handler(event(), channel, payload);
    expect(result).toMatchObject({ ok: false, error: { code: 'EINVAL' } });
    expect(manager.calls).toHaveLength(0);
  });

  it('turns a throwing manager into an EINTERNAL result', async () => {
    const { manager, handler } = setup();
    manager.throwWith = new Error('boom');
    expect(await handler(event(), 'demo:list', {})).toEqual({
      ok: false,
      error: { code: 'EINTERNAL', message: 'boom' },
    });
  });

  it('survives a malformed event object', async () => {
    const { handler } = setup();
    const broken = { sender: undefined, senderFrame: undefined } as unknown as InvokeEventLike;
    expect(await handler(broken, 'demo:list', {})).toMatchObject({ ok: false });
  });
});

describe('registration and events', () => {
  it('registers exactly one handler on the invoke channel and removes it', async () => {
    const registered = new Map<string, Parameters<IpcMainLike['handle']>[1]>();
    const ipcMain: IpcMainLike = {
      handle: (channel, listener) => registered.set(channel, listener),
      removeHandler: (channel) => registered.delete(channel),
    };
    const manager = new FakeManager();
    const dispose = registerInvokeHandler(ipcMain, manager, () => WINDOW_ID);
    expect([...registered.keys()]).toEqual([INVOKE_CHANNEL]);
    const listener = registered.get(INVOKE_CHANNEL)!;
    expect(await listener(event(), 'demo:list', {})).toEqual({ ok: true, value: 'answered' });
    dispose();
    expect(registered.size).toBe(0);
  });

  it('forwards host events until unsubscribed and skips a destroyed target', () => {
    const listeners = new Set<(e: HostEvent) => void>();
    const source = {
      subscribe(l: (e: HostEvent) => void) {
        listeners.add(l);
        return () => listeners.delete(l);
      },
    };
    const sent: [string, unknown][] = [];
    let destroyed = false;
    const target: EventTargetLike = {
      isDestroyed: () => destroyed,
      send: (channel, e) => sent.push([channel, e]),
    };
    const unsubscribe = forwardHostEvents(source, target);
    const e: HostEvent = { type: 'sessions', sessions: [] };
    for (const l of listeners) l(e);
    expect(sent).toEqual([[EVENT_CHANNEL, e]]);
    destroyed = true;
    for (const l of listeners) l(e);
    expect(sent).toHaveLength(1);
    unsubscribe();
    expect(listeners.size).toBe(0);
  });

  it('sends menu events only to a live window', () => {
    const sent: unknown[] = [];
    const target: EventTargetLike = { isDestroyed: () => false, send: (_c, e) => sent.push(e) };
    expect(sendMenuEvent(target, { type: 'menu', action: 'new-session' })).toBe(true);
    expect(sendMenuEvent(null, { type: 'menu', action: 'new-session' })).toBe(false);
    expect(
      sendMenuEvent(
        { ...target, isDestroyed: () => true },
        { type: 'menu', action: 'new-session' },
      ),
    ).toBe(false);
    expect(sent).toEqual([{ type: 'menu', action: 'new-session' }]);
  });

  it('takes its channel names from shared/, as the preload does (no literal of their own)', () => {
    for (const file of ['./ipc-registry.ts', '../preload/preload.ts']) {
      const text = readFileSync(new URL(file, import.meta.url), 'utf8');
      expect(text, file).toMatch(
        /import \{ IPC_CHANNELS \} from '\.\.\/\.\.\/shared\/bridge-protocol\.js'/,
      );
      expect(text, file).not.toContain(`'${INVOKE_CHANNEL}'`);
      expect(text, file).not.toContain(`'${EVENT_CHANNEL}'`);
    }
  });
});
