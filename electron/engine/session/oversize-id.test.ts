import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { discardedLineId, idFromHead, idFromTail } from './oversize-id.js';

const u8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const EDGE = 4096;
const head = (line: string): Uint8Array => u8(line).subarray(0, EDGE);
const tail = (line: string): Uint8Array => {
  const b = u8(line);
  return b.subarray(Math.max(0, b.length - EDGE));
};
const big = (n: number): string => 'x'.repeat(n);

describe('the id of a line discarded over the limit', () => {
  it('reads it from the head when the server writes id first', () => {
    const line = `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"${big(9000)}"}]}}`;
    expect(idFromHead(head(line))).toEqual({ id: 3, from: 'head', kind: 'response' });
    expect(discardedLineId({ head: head(line), tail: tail(line), atEof: false })?.from).toBe(
      'head',
    );
  });

  it('reads it from the tail when the server writes it last (the SDKs)', () => {
    const line = `{"result":{"content":[{"type":"text","text":"${big(9000)}"}]},"jsonrpc":"2.0","id":"req-7"}`;
    expect(idFromHead(head(line))).toBeNull();
    expect(discardedLineId({ head: head(line), tail: tail(line), atEof: false })).toEqual({
      id: 'req-7',
      from: 'tail',
      kind: 'unknown',
    });
    // jsonrpc after the id, a \r and spaces before the newline.
    expect(idFromTail(u8(`${big(50)}"},"id":12,"jsonrpc":"2.0"} \r`))?.id).toBe(12);
  });

  it('skips small values before the id in the head, and a whole small line', () => {
    expect(
      idFromHead(u8('{"jsonrpc":"2.0","meta":{"a":[1,{"b":"}"}]},"id":-4,"result":{')),
    ).toMatchObject({ id: -4, kind: 'response' });
    expect(idFromHead(u8('{"id":"a\\"b","error":{"code":1}}'))?.id).toBe('a"b');
  });

  it('never attributes a request of the server, nor a line cut by EOF by its tail', () => {
    const req = `{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"x":"${big(9000)}"}}`;
    expect(discardedLineId({ head: head(req), tail: tail(req), atEof: false })).toBeNull();
    const cut = `{"result":{"text":"${big(9000)}"},"id":9}`;
    expect(discardedLineId({ head: head(cut), tail: tail(cut), atEof: true })).toBeNull();
  });

  it('does not take an id inside a string or of a nested object', () => {
    // A nested object's id closes with two braces: not the top level's last member.
    expect(idFromTail(u8('{"result":{"item":{"id":5}}}'))).toBeNull();
    // Escaped quotes inside a string value.
    expect(idFromTail(u8('{"result":"the text \\"id\\":5}'))).toBeNull();
    expect(idFromHead(u8('{"result":"{\\"id\\":5}"'))).toBeNull();
    // Not a JSON-RPC id: objects, null, booleans.
    expect(idFromTail(u8('{"result":1,"id":null}'))).toBeNull();
    expect(idFromHead(u8('{"id":{"x":1},"result":'))).toBeNull();
    expect(idFromHead(u8('{"id":true,"result":'))).toBeNull();
  });

  it('answers null or a well-formed id for any bytes, without throwing', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.uint8Array({ maxLength: 300 }),
        fc.boolean(),
        (h, t, atEof) => {
          const r = discardedLineId({ head: h, tail: t, atEof });
          if (r !== null) expect(['string', 'number']).toContain(typeof r.id);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('finds an id the property generator put first or last, whatever the body', () => {
    const idArb = fc.oneof(fc.integer({ min: -1e9, max: 1e9 }), fc.string({ maxLength: 20 }));
    fc.assert(
      fc.property(idArb, fc.string({ maxLength: 6000 }), fc.boolean(), (id, text, first) => {
        const result = { content: [{ type: 'text', text }] };
        const msg = first ? { jsonrpc: '2.0', id, result } : { result, jsonrpc: '2.0', id };
        const line = JSON.stringify(msg);
        const r = discardedLineId({ head: head(line), tail: tail(line), atEof: false });
        expect(r?.id).toEqual(id);
      }),
      { numRuns: 300 },
    );
  });
});
