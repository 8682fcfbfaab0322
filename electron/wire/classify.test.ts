import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineClassifier } from '../worker/read/line-classifier.js';
import { type Classified, classifyValue } from './classify.js';

const classifier = new LineClassifier();
const classifyFrame = (frame: Uint8Array) => classifier.classify(frame);

const b = (s: string): Buffer => Buffer.from(s, 'utf8');
const line = (v: unknown): Buffer => b(JSON.stringify(v));

describe('classifyFrame: JSON-RPC kinds', () => {
  it('classifies a request with its id and method', () => {
    const c = classifyFrame(line({ jsonrpc: '2.0', id: 7, method: 'ping' }));
    expect(c).toEqual({ kind: 'request', id: 7, method: 'ping' });
  });

  it('classifies a notification (no id); its params stay in its bytes', () => {
    const c = classifyFrame(
      line({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info' } }),
    );
    expect(c).toEqual({ kind: 'notification', method: 'notifications/message' });
  });

  it('classifies a successful response', () => {
    const c = classifyFrame(line({ jsonrpc: '2.0', id: 'abc', result: { tools: [] } }));
    expect(c).toEqual({ kind: 'response', id: 'abc' });
  });

  it('classifies an error response with code and message', () => {
    const c = classifyFrame(
      line({ jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } }),
    );
    expect(c).toEqual({
      kind: 'response',
      id: 3,
      error: { code: -32601, message: 'Method not found' },
    });
  });

  it('accepts an error response with id null (parse error answered by the server)', () => {
    const c = classifyFrame(
      line({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }),
    );
    expect(c.kind).toBe('response');
    expect(c.id).toBeNull();
    expect(c.error?.code).toBe(-32700);
  });

  it('tolerates a malformed error object (code missing, message not a string)', () => {
    const c = classifyFrame(line({ jsonrpc: '2.0', id: 1, error: { message: 42 } }));
    expect(c.kind).toBe('response');
    expect(c.error).toEqual({ code: 0, message: '42' });
    const n = classifyFrame(line({ jsonrpc: '2.0', id: 1, error: null }));
    expect(n.kind).toBe('response');
    expect(n.error?.code).toBe(0);
  });

  it('does not throw on an error message whose toString is not callable', () => {
    // String({toString: 1}) throws a TypeError: a hostile server must not crash the worker.
    const text = '{"jsonrpc":"2.0","id":1,"error":{"code":5,"message":{"toString":1}}}';
    let c: Classified | undefined;
    expect(() => {
      c = classifyFrame(b(text));
    }).not.toThrow();
    expect(c?.kind).toBe('response');
    expect(c?.error?.code).toBe(5);
    expect(typeof c?.error?.message).toBe('string');
    const arr = '{"jsonrpc":"2.0","id":1,"error":{"code":5,"message":[{"toString":1}]}}';
    expect(() => classifyFrame(b(arr))).not.toThrow();
    // String() of a 1e5-deep array recurses past the stack.
    const deep = `{"jsonrpc":"2.0","id":1,"error":{"code":5,"message":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    expect(classifyFrame(b(deep)).kind).toBe('response');
  });

  it('shortens a huge error message to a bounded problem text', () => {
    const c = classifyFrame(
      line({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'e'.repeat(100_000) } }),
    );
    expect(c.error?.message.length).toBeLessThanOrEqual(201);
    expect(c.error?.message.endsWith('…')).toBe(true);
  });

  it('extracts progress fields of notifications/progress', () => {
    const c = classifyFrame(
      line({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'tok-1', progress: 3, total: 10 },
      }),
    );
    expect(c).toMatchObject({
      kind: 'notification',
      progressToken: 'tok-1',
      progress: 3,
      total: 10,
    });
    const numeric = classifyFrame(
      line({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 9, progress: 0.5 },
      }),
    );
    expect(numeric.progressToken).toBe(9);
    expect(numeric.progress).toBe(0.5);
    expect(numeric).not.toHaveProperty('total');
  });

  it('ignores progress fields of the wrong type and on other methods', () => {
    const bad = classifyFrame(
      line({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: { x: 1 }, progress: '3', total: null },
      }),
    );
    expect(bad.kind).toBe('notification');
    expect(bad).not.toHaveProperty('progressToken');
    expect(bad).not.toHaveProperty('progress');
    expect(bad).not.toHaveProperty('total');
    const other = classifyFrame(
      line({ jsonrpc: '2.0', method: 'notifications/other', params: { progressToken: 1 } }),
    );
    expect(other).not.toHaveProperty('progressToken');
  });
});

describe('classifyFrame: ids', () => {
  it.each([
    ['negative', -5],
    ['float', 1.5],
    ['zero', 0],
    ['large safe integer', Number.MAX_SAFE_INTEGER],
    ['empty string', ''],
  ])('keeps a %s id on requests and responses', (_name, id) => {
    expect(classifyFrame(line({ jsonrpc: '2.0', id, method: 'm' }))).toMatchObject({
      kind: 'request',
      id,
    });
    expect(classifyFrame(line({ jsonrpc: '2.0', id, result: {} }))).toEqual({
      kind: 'response',
      id,
    });
  });

  it('rejects object, array, boolean and null ids on requests', () => {
    for (const id of ['{"a":1}', '[1]', 'true', 'null']) {
      const c = classifyFrame(b(`{"jsonrpc":"2.0","id":${id},"method":"m"}`));
      expect(c.kind, id).toBe('invalid');
      expect(c.problem).toMatch(/id/);
    }
  });

  it('rejects object ids on responses', () => {
    const c = classifyFrame(b('{"jsonrpc":"2.0","id":{"x":1},"result":{}}'));
    expect(c.kind).toBe('invalid');
    expect(c.problem).toMatch(/id/);
  });

  it('rejects an id that overflows to Infinity (1e400)', () => {
    expect(classifyFrame(b('{"jsonrpc":"2.0","id":1e400,"method":"m"}')).kind).toBe('invalid');
    expect(classifyFrame(b('{"jsonrpc":"2.0","id":1e400,"result":1}')).kind).toBe('invalid');
  });

  it('keeps a huge integer id as the nearest double (never crashes)', () => {
    const c = classifyFrame(b('{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":1}'));
    expect(c.kind).toBe('response');
    expect(typeof c.id).toBe('number');
    expect(Number.isFinite(c.id)).toBe(true);
  });
});

describe('classifyFrame: invalid and hostile input', () => {
  it('reports an empty line as empty', () => {
    expect(classifyFrame(Buffer.alloc(0))).toEqual({ kind: 'empty', problem: 'empty line' });
  });

  it('reports non-JSON (a banner) as a parse error with a bounded problem', () => {
    const c = classifyFrame(b(`Server starting... ${'x'.repeat(5000)}`));
    expect(c.kind).toBe('parse-error');
    expect(c.problem).toBeTruthy();
    expect(c.problem?.length).toBeLessThanOrEqual(201);
  });

  it('reports invalid UTF-8 (\\xff\\xfe) as a parse error', () => {
    const c = classifyFrame(Buffer.from([0xff, 0xfe, 0x7b, 0x7d]));
    expect(c).toEqual({ kind: 'parse-error', problem: 'not valid UTF-8' });
  });

  it('reports a UTF-8 BOM before JSON as a parse error (JSON-RPC lines carry no BOM)', () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), line({ jsonrpc: '2.0', id: 1 })]);
    expect(classifyFrame(bom).kind).toBe('parse-error');
  });

  it('reports a message without "jsonrpc": "2.0" as invalid', () => {
    expect(classifyFrame(line({ id: 1, method: 'm' }))).toEqual({
      kind: 'invalid',
      problem: 'missing "jsonrpc": "2.0"',
    });
    expect(classifyFrame(line({ jsonrpc: '1.0', id: 1, result: 1 })).kind).toBe('invalid');
  });

  it('reports non-object JSON values as invalid', () => {
    for (const text of ['42', '"hello"', 'null', 'true']) {
      expect(classifyFrame(b(text)).kind, text).toBe('invalid');
    }
  });

  it('reports a message that is neither request, notification nor response as invalid', () => {
    expect(classifyFrame(line({ jsonrpc: '2.0', id: 1 })).kind).toBe('invalid');
    expect(classifyFrame(line({ jsonrpc: '2.0', result: 1 })).kind).toBe('invalid');
  });

  it('classifies an array (batch) as batch, including an empty one', () => {
    expect(classifyFrame(b('[{"jsonrpc":"2.0","id":1,"result":1}]')).kind).toBe('batch');
    expect(classifyFrame(b('[]')).kind).toBe('batch');
    expect(classifyValue([])).toEqual({ kind: 'batch' });
  });

  it('does not pollute Object.prototype with __proto__ keys', () => {
    const texts = [
      '{"__proto__":{"polluted":"yes"},"jsonrpc":"2.0","id":1,"result":{}}',
      '{"jsonrpc":"2.0","method":"x","params":{"__proto__":{"polluted":"yes"}}}',
      '{"jsonrpc":"2.0","id":1,"error":{"__proto__":{"polluted":"yes"},"code":1,"message":"m"}}',
      '{"__proto__":{"jsonrpc":"2.0","id":1,"result":{}}}',
    ];
    const out = texts.map((t) => classifyFrame(b(t)));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(out[0].kind).toBe('response');
    // An inherited-looking jsonrpc/id under __proto__ is only an own key: not a message.
    expect(out[3].kind).toBe('invalid');
  });

  it('survives 1e5-deep nesting without crashing', () => {
    const depth = 100_000;
    const arr = b(`${'['.repeat(depth)}${']'.repeat(depth)}`);
    expect(['batch', 'parse-error']).toContain(classifyFrame(arr).kind);
    const obj = b(
      `{"jsonrpc":"2.0","method":"deep","params":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`,
    );
    const c = classifyFrame(obj);
    expect(['notification', 'parse-error']).toContain(c.kind);
    // Far over the params budget: never kept.
    expect(c).not.toHaveProperty('params');
  });

  it('handles huge numbers in results and progress', () => {
    const c = classifyFrame(
      b(`{"jsonrpc":"2.0","id":1,"result":{"n":1e400,"m":${'9'.repeat(500)}}}`),
    );
    expect(c).toEqual({ kind: 'response', id: 1 });
    const p = classifyFrame(
      b(
        '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1e400}}',
      ),
    );
    expect(p.kind).toBe('notification');
    expect(p.progress).toBe(Number.POSITIVE_INFINITY);
  });

  it('keeps U+2028 inside strings (a valid message)', () => {
    const c = classifyFrame(
      b('{"jsonrpc":"2.0","method":"m\u2028","params":{"s":"a\u2028b\u2029c"}}'),
    );
    expect(c).toEqual({ kind: 'notification', method: 'm\u2028' });
  });
});

describe('classifyFrame: params', () => {
  it('carries no params, whatever their size or shape: only the progress fields', () => {
    for (const params of [{ s: 'x' }, { s: 'x'.repeat(20_000) }, [1, 2], { p: { q: [1] } }]) {
      const c = classifyFrame(line({ jsonrpc: '2.0', id: 3, method: 'sampling/x', params }));
      expect(c).toEqual({ kind: 'request', id: 3, method: 'sampling/x' });
    }
    const progress = classifyFrame(
      line({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 't', progress: 2, total: 4, message: 'x'.repeat(20_000) },
      }),
    );
    expect(progress).toEqual({
      kind: 'notification',
      method: 'notifications/progress',
      progressToken: 't',
      progress: 2,
      total: 4,
    });
  });
});

describe('classifyFrame: properties', () => {
  it('never throws on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const c = classifyFrame(Buffer.from(bytes));
        expect(typeof c.kind).toBe('string');
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on arbitrary JSON values, and request/response ids are finite', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (id, extra) => {
        for (const msg of [
          { jsonrpc: '2.0', id, method: 'm', params: extra },
          { jsonrpc: '2.0', id, result: extra },
          { jsonrpc: '2.0', id, error: extra },
        ]) {
          const c = classifyFrame(line(msg));
          if (c.kind === 'request' || c.kind === 'response') {
            expect(c.id === null || typeof c.id === 'string' || Number.isFinite(c.id)).toBe(true);
          }
          if (c.error) expect(typeof c.error.message).toBe('string');
        }
      }),
      { numRuns: 300 },
    );
  });
});
