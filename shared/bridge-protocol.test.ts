import { describe, expect, it } from 'vitest';
import { MAX_CHANNEL_CHARS, parseWsCall, parseWsServerMessage } from './bridge-protocol.js';

describe('parseWsCall (what the server reads from a browser)', () => {
  it('reads a call', () => {
    expect(parseWsCall('{"id":3,"channel":"demo:list","payload":{}}')).toEqual({
      id: 3,
      channel: 'demo:list',
      payload: {},
    });
  });

  it('cannot answer frames without a usable id', () => {
    for (const text of [
      'not json',
      'null',
      '[1,2]',
      '"x"',
      '{"channel":"demo:list"}',
      '{"id":-1,"channel":"a"}',
      '{"id":1.5,"channel":"a"}',
      '{"id":"1","channel":"a"}',
      `{"id":${2 ** 60},"channel":"a"}`,
    ])
      expect(parseWsCall(text), text).toBeNull();
  });

  it('answers a bad channel with an error for that id', () => {
    expect(parseWsCall('{"id":1,"channel":7}')).toMatchObject({ id: 1, error: /channel/ });
    const long = 'x'.repeat(MAX_CHANNEL_CHARS + 1);
    expect(parseWsCall(JSON.stringify({ id: 2, channel: long }))).toMatchObject({ id: 2 });
    expect(parseWsCall(JSON.stringify({ id: 2, channel: long.slice(1) }))).toMatchObject({
      channel: long.slice(1),
    });
  });

  it('keeps __proto__ keys as data, never as the prototype', () => {
    const call = parseWsCall('{"id":1,"channel":"a","payload":{"__proto__":{"x":1}}}');
    expect(call && 'payload' in call && ({} as Record<string, unknown>).x).toBe(undefined);
  });
});

describe('parseWsServerMessage (what the browser reads from the server)', () => {
  it('reads answers and the three event kinds it knows', () => {
    expect(parseWsServerMessage('{"id":1,"result":{"ok":true,"value":2}}')).toEqual({
      id: 1,
      result: { ok: true, value: 2 },
    });
    for (const type of ['snapshot', 'sessions', 'notice'])
      expect(parseWsServerMessage(JSON.stringify({ event: { type } }))).toEqual({
        event: { type },
      });
  });

  it('drops anything else', () => {
    for (const text of [
      '',
      'null',
      '{"id":1}',
      '{"id":1,"result":{"value":2}}',
      '{"id":1,"result":null}',
      '{"event":{"type":"menu"}}',
      '{"event":null}',
      '[{"id":1,"result":{"ok":true}}]',
    ])
      expect(parseWsServerMessage(text), text).toBeNull();
  });
});
