import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type JsonNode, jsonValue, memberOf, parseJsonc, parseJsoncNode } from './jsonc.js';

/** Every node of a tree, depth first. */
function nodes(node: JsonNode): JsonNode[] {
  if (node.kind === 'object') return [node, ...node.members.flatMap((m) => nodes(m.value))];
  if (node.kind === 'array') return [node, ...node.items.flatMap(nodes)];
  return [node];
}

describe('parseJsoncNode', () => {
  it('spans each value and key exactly as written, comments and trailing commas around them', () => {
    const text = '\ufeff// c\r\n{ "a" : [1, /* x */ "two\\n",], "b": {"c": null,}, "a": true }';
    const root = parseJsoncNode(text, 't');
    if (root.kind !== 'object') throw new Error('object expected');
    expect(text.slice(root.start, root.end)).toBe(text.slice(text.indexOf('{')));
    expect(root.members.map((m) => text.slice(m.keyStart, m.keyEnd))).toEqual([
      '"a"',
      '"b"',
      '"a"',
    ]);
    expect(root.members.map((m) => text.slice(m.value.start, m.value.end))).toEqual([
      '[1, /* x */ "two\\n",]',
      '{"c": null,}',
      'true',
    ]);
    expect(memberOf(root, 'a')?.value).toMatchObject({ kind: 'boolean', value: true });
    expect(jsonValue(root)).toEqual(parseJsonc(text, 't'));
    expect({ ...(parseJsonc(text, 't') as object) }).toEqual({ a: true, b: { c: null } });
  });

  it('agrees with JSON.parse on any JSON text, and every span parses back to its value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2, '\t'), (value, space) => {
        const text = JSON.stringify(value, null, space);
        const root = parseJsoncNode(text, 't');
        expect(jsonValue(root)).toEqual(JSON.parse(text));
        for (const node of nodes(root)) {
          expect(jsonValue(parseJsoncNode(text.slice(node.start, node.end), 's'))).toEqual(
            jsonValue(node),
          );
        }
      }),
      { numRuns: 200 },
    );
  });

  it('keeps its error messages (line, column, no text quoted)', () => {
    expect(() => parseJsonc('{\n  "k": "secret" x', 'f.json')).toThrow(
      "f.json: invalid JSON at line 2, column 17: expected ',' or '}', unexpected character 'x'",
    );
  });
});
