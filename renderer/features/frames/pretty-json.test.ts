import { describe, expect, it } from 'vitest';
import { PRETTY_MAX_BYTES } from './paging.js';
import { prettyJson, reindentJson } from './pretty-json.js';

describe('prettyJson (the decision)', () => {
  it('pretty-prints a small complete JSON object', () => {
    expect(prettyJson('{"a":1,"b":[true,null]}', 23)).toBe(
      '{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}',
    );
  });

  it('declines frames over the limit, incomplete text, and non-JSON', () => {
    expect(prettyJson('{"a":1}', PRETTY_MAX_BYTES + 1)).toBeNull();
    expect(prettyJson(null, 10)).toBeNull();
    expect(prettyJson('{"a":', 5)).toBeNull();
    expect(prettyJson('hello world', 11)).toBeNull();
    expect(prettyJson('42', 2)).toBeNull(); // scalars: nothing to indent
  });

  it('accepts a frame exactly at the limit', () => {
    const text = `{"k":"${'x'.repeat(PRETTY_MAX_BYTES - 8)}"}`;
    expect(text.length).toBe(PRETTY_MAX_BYTES);
    expect(prettyJson(text, PRETTY_MAX_BYTES)).not.toBeNull();
  });
});

describe('reindentJson', () => {
  it('keeps number spellings JSON.stringify would change', () => {
    const text = '{"big":12345678901234567890,"exp":1e400,"f":1.50}';
    const out = reindentJson(text);
    expect(out).toContain('12345678901234567890');
    expect(out).toContain('1e400');
    expect(out).toContain('1.50');
  });

  it('leaves strings with brackets, commas, colons and escapes untouched', () => {
    const text = '{"s":"a,{b}:[c] \\"q\\" \\\\","u":"\\u2028 ✓"}';
    const out = reindentJson(text);
    expect(JSON.parse(out)).toEqual(JSON.parse(text));
    expect(out).toContain('"a,{b}:[c] \\"q\\" \\\\"');
    expect(out).toContain('"\\u2028 ✓"');
  });

  it('prints empty containers compactly and drops original whitespace', () => {
    expect(reindentJson('{ "a" : { } , "b" : [ ] }')).toBe('{\n  "a": {},\n  "b": []\n}');
  });

  it('round-trips realistic MCP messages', () => {
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'x', arguments: { n: [1, 2, { d: 'e' }] } },
      },
      {
        jsonrpc: '2.0',
        id: 'a',
        result: { content: [{ type: 'text', text: 'line\nbreak' }], isError: false },
      },
      [{ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 0.5 } }],
    ];
    for (const message of messages) {
      const text = JSON.stringify(message);
      const out = reindentJson(text);
      expect(JSON.parse(out)).toEqual(message);
      expect(out).toBe(JSON.stringify(message, null, 2));
    }
  });
});
