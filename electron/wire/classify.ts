/**
 * What a parsed JSON value is as JSON-RPC (request / response / notification / batch / invalid).
 *
 * The worker classifies lines from their bytes (line-classifier.ts, no JSON.parse); this is the
 * definition it must agree with, used for batch elements and as the oracle of its tests.
 */
import { isUtf8 } from 'node:buffer';
import type { FrameMeta } from './columns.js';

/** What classification learns about a line: a frame's metadata without its position. */
export type Classified = Omit<FrameMeta, 'offset' | 'bytes' | 'start' | 't'>;

const PROBLEM_MAX_CHARS = 200;

function isId(v: unknown): v is string | number {
  return typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
}

function shorten(s: string): string {
  return s.length > PROBLEM_MAX_CHARS ? `${s.slice(0, PROBLEM_MAX_CHARS)}…` : s;
}

/** String(v) that never throws: `{"toString":1}` from a hostile server makes String() throw. */
function safeText(v: unknown): string {
  if (typeof v === 'string') return v;
  try {
    return String(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}

/**
 * The fields of a `notifications/progress` params object that the session follows. Nothing
 * else of a message's params travels with its frame: they are in the frame's bytes, which the
 * session keeps (parsing and cloning every notification's params cost the worker a JSON.parse
 * each and main a fifth of its time in a logging flood, for values nothing read).
 */
export function progressFields(out: Classified, params: object): void {
  const p = params as Record<string, unknown>;
  if (isId(p.progressToken)) out.progressToken = p.progressToken;
  if (typeof p.progress === 'number') out.progress = p.progress;
  if (typeof p.total === 'number') out.total = p.total;
}

/** Code and (bounded) message of a response's `error` member, whatever its type. */
export function errorInfo(e: unknown): { code: number; message: string } {
  const eo = (e ?? {}) as Record<string, unknown>;
  return {
    code: typeof eo.code === 'number' ? eo.code : 0,
    message: shorten(safeText(eo.message)),
  };
}

/** Classifies an already-parsed JSON value (also used for the elements of a batch). */
export function classifyValue(value: unknown): Classified {
  if (Array.isArray(value)) return { kind: 'batch' };
  if (value === null || typeof value !== 'object') {
    return { kind: 'invalid', problem: 'JSON value is not an object' };
  }
  const msg = value as Record<string, unknown>;
  if (msg.jsonrpc !== '2.0') return { kind: 'invalid', problem: 'missing "jsonrpc": "2.0"' };
  const hasId = Object.hasOwn(msg, 'id');
  if (typeof msg.method === 'string') {
    const out: Classified = {
      kind: hasId ? 'request' : 'notification',
      method: msg.method,
    };
    if (hasId) {
      if (!isId(msg.id))
        return { kind: 'invalid', problem: 'request id is not a string or number' };
      out.id = msg.id;
    }
    const params = msg.params;
    const isObject = params !== null && typeof params === 'object' && !Array.isArray(params);
    if (msg.method === 'notifications/progress' && isObject) progressFields(out, params);
    return out;
  }
  if (hasId && (Object.hasOwn(msg, 'result') || Object.hasOwn(msg, 'error'))) {
    const id = msg.id;
    if (id !== null && !isId(id)) return { kind: 'invalid', problem: 'response id has a bad type' };
    const out: Classified = { kind: 'response', id: id as string | number | null };
    if (msg.error !== undefined) out.error = errorInfo(msg.error);
    return out;
  }
  return { kind: 'invalid', problem: 'neither a request, a notification nor a response' };
}

/** The reference classification of a line: JSON.parse, then classifyValue. */
export function classifyFrameByParse(frame: Buffer): Classified {
  if (frame.length === 0) return { kind: 'empty', problem: 'empty line' };
  if (!isUtf8(frame)) return { kind: 'parse-error', problem: 'not valid UTF-8' };
  let value: unknown;
  // Only the message is read: no stack to capture makes a throw about half as costly.
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    value = JSON.parse(frame.toString('utf8'));
  } catch (e) {
    return { kind: 'parse-error', problem: shorten(e instanceof Error ? e.message : String(e)) };
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
  return classifyValue(value);
}
