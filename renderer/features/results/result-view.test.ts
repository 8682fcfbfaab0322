import { describe, expect, it } from 'vitest';
import {
  blockView,
  collapsedText,
  partialFirstText,
  requestParams,
  responseView,
} from './result-view';

const line = (result: unknown): string => JSON.stringify({ jsonrpc: '2.0', id: 3, result });
const PNG_1PX =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('blockView', () => {
  it('keeps text exactly, with its UTF-8 size', () => {
    expect(blockView({ type: 'text', text: '  a\n\tb ✓' })).toEqual({
      kind: 'text',
      role: undefined,
      text: '  a\n\tb ✓',
      bytes: 10,
    });
  });

  it('makes a data: URI only of a base64 image of an image type', () => {
    const ok = blockView({ type: 'image', data: PNG_1PX, mimeType: 'image/png' });
    expect(ok).toMatchObject({ kind: 'image', src: `data:image/png;base64,${PNG_1PX}` });
    const html = blockView({ type: 'image', data: PNG_1PX, mimeType: 'text/html' });
    expect(html).toMatchObject({ kind: 'image', src: null, problem: 'not an image type' });
    const inject = blockView({ type: 'image', data: 'AAAA"onerror=x', mimeType: 'image/png' });
    expect(inject).toMatchObject({ src: null, problem: 'data is not base64' });
    const param = blockView({ type: 'image', data: PNG_1PX, mimeType: 'image/png;x=1' });
    expect(param).toMatchObject({ src: null });
  });

  it('audio, resources, links and unknown blocks', () => {
    expect(blockView({ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' })).toMatchObject({
      kind: 'audio',
      mimeType: 'audio/wav',
      bytes: 4,
    });
    expect(
      blockView({
        type: 'resource',
        resource: { uri: 'file:///a.txt', text: 'hi', mimeType: 'text/plain' },
      }),
    ).toMatchObject({ kind: 'resource', uri: 'file:///a.txt', text: 'hi', blobBytes: null });
    expect(blockView({ type: 'resource', resource: { uri: 'x:b', blob: 'AAAA' } })).toMatchObject({
      kind: 'resource',
      text: null,
      blobBytes: 4,
    });
    expect(blockView({ type: 'resource_link', uri: 'file:///r', name: 'r' })).toMatchObject({
      kind: 'resource_link',
      uri: 'file:///r',
      name: 'r',
      mimeType: null,
    });
    expect(blockView({ type: 'widget', x: 1 })).toMatchObject({ kind: 'other', type: 'widget' });
    expect(blockView('text')).toMatchObject({ kind: 'other', type: '(not an object)' });
    expect(blockView({ type: 'text', text: 5 })).toMatchObject({ kind: 'other', type: 'text' });
  });
});

describe('responseView', () => {
  it('a tool result: blocks, structuredContent and isError', () => {
    const v = responseView(
      'tools/call',
      line({
        content: [{ type: 'text', text: 'boom' }],
        structuredContent: { ok: false },
        isError: true,
      }),
    );
    if (v.kind !== 'result') throw new Error(v.kind);
    expect(v.view.isError).toBe(true);
    expect(v.view.hasBlocks).toBe(true);
    expect(v.view.blocks.map((b) => b.kind)).toEqual(['text']);
    expect(v.view.structured).toEqual({ value: { ok: false } });
  });

  it('resources/read contents and prompts/get messages with their role', () => {
    const r = responseView('resources/read', line({ contents: [{ uri: 'a:1', text: 't' }] }));
    expect(r.kind === 'result' && r.view.blocks[0]).toMatchObject({ kind: 'resource', uri: 'a:1' });
    const p = responseView(
      'prompts/get',
      line({ messages: [{ role: 'user', content: { type: 'text', text: 'q' } }] }),
    );
    expect(p.kind === 'result' && p.view.blocks[0]).toMatchObject({ kind: 'text', role: 'user' });
  });

  it('other methods have no blocks; errors and junk are told apart', () => {
    const list = responseView('tools/list', line({ tools: [] }));
    expect(list.kind === 'result' && list.view.hasBlocks).toBe(false);
    expect(
      responseView(
        'tools/call',
        '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad"}}',
      ),
    ).toEqual({ kind: 'error', code: -32602, message: 'bad', data: undefined });
    expect(responseView('tools/call', '{"jsonrpc":')).toMatchObject({ kind: 'unparsed' });
    expect(responseView('tools/call', '[1]')).toMatchObject({ kind: 'unparsed' });
    // A result that is not an object, or lacks content: no blocks, no crash.
    const odd = responseView('tools/call', line(null));
    expect(odd.kind === 'result' && odd.view.blocks).toEqual([]);
  });

  it('__proto__ keys stay data', () => {
    const v = responseView(
      'tools/call',
      '{"id":1,"result":{"__proto__":{"isError":true},"content":[]}}',
    );
    expect(v.kind === 'result' && v.view.isError).toBe(false);
    expect(({} as { isError?: boolean }).isError).toBeUndefined();
  });
});

describe('requestParams', () => {
  it('reads params of a request line', () => {
    expect(requestParams('{"id":1,"method":"tools/call","params":{"name":"echo"}}')).toEqual({
      name: 'echo',
    });
    expect(requestParams('{"id":1,"method":"ping"}')).toBeNull();
    expect(requestParams('{"id":')).toBeUndefined();
  });
});

describe('collapsedText', () => {
  it('keeps short text whole, cuts long text by characters or lines', () => {
    expect(collapsedText('short')).toBeNull();
    expect(collapsedText('x'.repeat(10), 4)).toBe('xxxx');
    const lines = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n');
    const cut = collapsedText(lines, 10_000, 40);
    expect(cut?.split('\n')).toHaveLength(40);
    // A surrogate pair at the cut is not split.
    expect(collapsedText('ab🎉cd', 3)).toBe('ab');
  });
});

describe('partialFirstText', () => {
  it('decodes the first text block of a head, as far as it goes', () => {
    const head =
      '{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"line 1\\nsaid \\"hi\\" \\u00e9 and mo';
    expect(partialFirstText(head)).toBe('line 1\nsaid "hi" é and mo');
    // Cut inside an escape: stops before it.
    expect(partialFirstText('{"content":[{"text":"ab\\u00')).toBe('ab');
    expect(partialFirstText('{"content":[{"text":"ab\\')).toBe('ab');
    expect(partialFirstText('{"result":{"tools":[]}}')).toBeNull();
  });
});
