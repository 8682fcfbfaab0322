/**
 * Whose answer a line discarded over the transport limit was, read from the few bytes the
 * framer kept of it (its first and last 4 KiB, never the line): DESIGN.md "Results and host
 * profiles". SDK servers write `"id"` last (`{"result":…,"jsonrpc":"2.0","id":3}`), others
 * first (`{"jsonrpc":"2.0","id":3,"result":…}`). Pure; every input is hostile (any bytes, cut
 * anywhere), so it answers `null` rather than guess.
 */
import type { JsonRpcId } from '../../../shared/requests.js';

export interface EdgeId {
  id: JsonRpcId;
  from: 'head' | 'tail';
  /** What the line's top-level keys say it is (the head only; the tail cannot tell). */
  kind: 'response' | 'request' | 'unknown';
}

const decoder = new TextDecoder('utf-8', { fatal: false });

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** A JSON-RPC id's token: a number or a string (no control characters, escapes allowed). */
function idValue(token: string): JsonRpcId | null {
  try {
    const v: unknown = JSON.parse(token);
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (typeof v === 'string') return v;
  } catch {
    // not a whole token
  }
  return null;
}

/**
 * The top-level keys of the object the head begins, walked as far as its bytes go: `id` when
 * its value is a whole number or string, and whether `result`/`error` or `method` appear.
 */
export function idFromHead(head: Uint8Array): EdgeId | null {
  const s = decoder.decode(head);
  let i = 0;
  const n = s.length;
  const skipWs = (): void => {
    while (i < n && WS.has(s.charCodeAt(i))) i++;
  };
  /** Skips a string starting at s[i] === '"'; returns its raw token or null if cut. */
  const str = (): string | null => {
    const start = i;
    i++;
    while (i < n) {
      const c = s.charCodeAt(i);
      if (c === 0x5c) i += 2;
      else if (c === 0x22) {
        i++;
        return s.slice(start, i);
      } else i++;
    }
    return null;
  };
  /** Skips one value; returns its raw token for a scalar, '' for an object/array, null if cut. */
  const value = (): string | null => {
    skipWs();
    if (i >= n) return null;
    const c = s[i];
    if (c === '"') return str();
    if (c === '{' || c === '[') {
      let depth = 0;
      while (i < n) {
        const d = s[i];
        if (d === '"') {
          if (str() === null) return null;
          continue;
        }
        if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') {
          depth--;
          if (depth === 0) {
            i++;
            return '';
          }
        }
        i++;
      }
      return null;
    }
    const start = i;
    while (i < n && !WS.has(s.charCodeAt(i)) && s[i] !== ',' && s[i] !== '}') i++;
    return i < n ? s.slice(start, i) : null;
  };

  skipWs();
  if (s[i] !== '{') return null;
  i++;
  let id: JsonRpcId | null = null;
  let kind: EdgeId['kind'] = 'unknown';
  for (;;) {
    skipWs();
    if (s[i] !== '"') break;
    const key = str();
    if (key === null) break;
    skipWs();
    if (s[i] !== ':') break;
    i++;
    const name = idValue(key);
    if (name === 'result' || name === 'error') kind = 'response';
    else if (name === 'method' && kind === 'unknown') kind = 'request';
    const v = value();
    if (name === 'id' && v !== null && v !== '') id = idValue(v);
    if (v === null) break;
    skipWs();
    if (s[i] !== ',') break;
    i++;
  }
  return id === null ? null : { id, from: 'head', kind };
}

/** `"id": <number | string>` as the object's last member (or before a last `"jsonrpc"`). */
const TAIL_ID =
  /[,{]\s*"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$/;

/** The id a line's last bytes close its top-level object with, or null. */
export function idFromTail(tail: Uint8Array): EdgeId | null {
  const m = TAIL_ID.exec(decoder.decode(tail));
  if (!m) return null;
  const id = idValue(m[1]);
  return id === null ? null : { id, from: 'tail', kind: 'unknown' };
}

/**
 * The id of a discarded line: the head's when it has one (and does not say it is a request of
 * the server's), else the tail's. A line cut by EOF has no last bytes of its own.
 */
export function discardedLineId(o: {
  head?: Uint8Array;
  tail?: Uint8Array;
  atEof: boolean;
}): EdgeId | null {
  const fromHead = o.head ? idFromHead(o.head) : null;
  if (fromHead?.kind === 'request') return null;
  if (fromHead) return fromHead;
  if (o.atEof || !o.tail) return null;
  return idFromTail(o.tail);
}
