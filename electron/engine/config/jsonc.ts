/**
 * The JSONC parser of the config importers (import.ts) and of `tap install` (tap-config.ts):
 * JSON plus comments and trailing commas, which VS Code's mcp.json allows. Pure: no Node, no
 * DOM. Errors name the file, line and column, and never quote the file's text back (it may hold
 * a secret).
 */

/** A JSON object as the importers read it (parseJsonc gives each a null prototype). */
export type JsonObject = Record<string, unknown>;

/**
 * A parsed value with where it lies in the text: `start` is the offset of its first character,
 * `end` the offset just past its last (so `text.slice(start, end)` is the value as written).
 * tap-config.ts edits a config by replacing such spans, never by re-serialising it.
 */
export type JsonNode =
  | { kind: 'object'; start: number; end: number; members: JsonMember[] }
  | { kind: 'array'; start: number; end: number; items: JsonNode[] }
  | { kind: 'string'; start: number; end: number; value: string }
  | { kind: 'number'; start: number; end: number; value: number }
  | { kind: 'boolean'; start: number; end: number; value: boolean }
  | { kind: 'null'; start: number; end: number; value: null };

export type JsonObjectNode = Extract<JsonNode, { kind: 'object' }>;

/** One `"key": value` of an object, in the order written (duplicates kept: the last one wins). */
export interface JsonMember {
  key: string;
  keyStart: number;
  keyEnd: number;
  value: JsonNode;
}

const MAX_DEPTH = 256;

/**
 * The value of a JSONC text (see parseJsoncNode). Objects have a null prototype, so a
 * `__proto__` key is an ordinary own property; of duplicate keys the last value wins, as with
 * JSON.parse.
 */
export function parseJsonc(text: string, display: string): unknown {
  return jsonValue(parseJsoncNode(text, display));
}

/** The plain value of a node (what parseJsonc returns for the same text). */
export function jsonValue(node: JsonNode): unknown {
  if (node.kind === 'array') return node.items.map(jsonValue);
  if (node.kind !== 'object') return node.value;
  const obj: JsonObject = Object.create(null);
  for (const m of node.members) obj[m.key] = jsonValue(m.value);
  return obj;
}

/** The last member called `key` (the one a JSON reader keeps), or undefined. */
export function memberOf(node: JsonObjectNode, key: string): JsonMember | undefined {
  return node.members.findLast((m) => m.key === key);
}

/**
 * The tree of a JSONC text, with the offset span of every value and key. A small strict parser
 * rather than strip-then-JSON.parse: the error names line and column on every engine, and never
 * quotes the file's text (which may hold a secret) back in the message. A leading BOM is skipped
 * (offsets still count it).
 */
export function parseJsoncNode(text: string, display: string): JsonNode {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const fail = (message: string, at = i): never => {
    let line = 1;
    let lineStart = 0;
    for (let k = text.indexOf('\n'); k !== -1 && k < at; k = text.indexOf('\n', k + 1)) {
      line++;
      lineStart = k + 1;
    }
    throw new Error(
      `${display}: invalid JSON at line ${line}, column ${at - lineStart + 1}: ${message}`,
    );
  };
  const describe = (at: number): string => {
    if (at >= text.length) return 'unexpected end of file';
    const c = text.codePointAt(at) ?? 0;
    return c > 0x20 && c < 0x7f
      ? `unexpected character '${text[at]}'`
      : `unexpected character U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
  };
  const skipTrivia = (): void => {
    for (;;) {
      const c = text[i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i++;
      else if (c === '/' && text[i + 1] === '/') {
        const end = text.indexOf('\n', i);
        i = end === -1 ? text.length : end;
      } else if (c === '/' && text[i + 1] === '*') {
        const end = text.indexOf('*/', i + 2);
        if (end === -1) fail('unterminated /* comment');
        i = end + 2;
      } else return;
    }
  };
  const parseString = (): string => {
    const open = i++;
    let out = '';
    let from = i;
    for (;;) {
      const c = text.charCodeAt(i);
      if (Number.isNaN(c) || c === 0x0a || c === 0x0d) fail('unterminated string', open);
      if (c === 0x22) {
        out += text.slice(from, i++);
        return out;
      }
      if (c < 0x20) fail('control character in string (escape it)');
      if (c === 0x5c) {
        out += text.slice(from, i);
        const e = text[i + 1];
        const simple: Record<string, string> = {
          '"': '"',
          '\\': '\\',
          '/': '/',
          b: '\b',
          f: '\f',
          n: '\n',
          r: '\r',
          t: '\t',
        };
        if (e !== undefined && Object.hasOwn(simple, e)) {
          out += simple[e];
          i += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          out += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else fail('invalid escape in string');
        from = i;
      } else i++;
    }
  };
  const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
  const parseValue = (depth: number): JsonNode => {
    skipTrivia();
    if (depth > MAX_DEPTH) fail(`nested deeper than ${MAX_DEPTH} levels`);
    const start = i;
    const c = text[i];
    if (c === '{' || c === '[') {
      const isObj = c === '{';
      const close = isObj ? '}' : ']';
      const members: JsonMember[] = [];
      const items: JsonNode[] = [];
      const done = (): JsonNode => {
        i++;
        return isObj
          ? { kind: 'object', start, end: i, members }
          : { kind: 'array', start, end: i, items };
      };
      i++;
      skipTrivia();
      if (text[i] === close) return done();
      for (;;) {
        if (isObj) {
          skipTrivia();
          if (text[i] !== '"') fail(`expected a property name in double quotes, ${describe(i)}`);
          const keyStart = i;
          const key = parseString();
          const keyEnd = i;
          skipTrivia();
          if (text[i] !== ':') fail(`expected ':' after a property name, ${describe(i)}`);
          i++;
          members.push({ key, keyStart, keyEnd, value: parseValue(depth + 1) });
        } else items.push(parseValue(depth + 1));
        skipTrivia();
        if (text[i] === ',') {
          i++;
          skipTrivia();
          if (text[i] !== close) continue; // a trailing comma is allowed (JSONC)
        }
        if (text[i] === close) return done();
        fail(`expected ',' or '${close}', ${describe(i)}`);
      }
    }
    if (c === '"') {
      const value = parseString();
      return { kind: 'string', start, end: i, value };
    }
    for (const [word, value] of [
      ['true', true],
      ['false', false],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return { kind: 'boolean', start, end: i, value };
      }
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return { kind: 'null', start, end: i, value: null };
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m) {
      i += m[0].length;
      return { kind: 'number', start, end: i, value: Number(m[0]) };
    }
    return fail(describe(i));
  };
  const value = parseValue(0);
  skipTrivia();
  if (i < text.length) fail(`${describe(i)} after the end of the JSON value`);
  return value;
}
