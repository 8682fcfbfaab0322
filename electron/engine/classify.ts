/**
 * What a parsed JSON value is as JSON-RPC (request / response / notification / batch / invalid).
 *
 * The worker classifies lines from their bytes (line-classifier.ts, no JSON.parse); this is the
 * definition it must agree with, used for batch elements and as the oracle of its tests.
 */
import { isUtf8 } from 'node:buffer';
import type { FrameMeta } from './worker-protocol.js';

/** What classification learns about a line: a frame's metadata without its position. */
export type Classified = Omit<FrameMeta, 'offset' | 'bytes' | 'start' | 't'>;

/** Params of server-initiated requests/notifications are kept only when this small. */
export const KEEP_PARAMS_BYTES = 16 * 1024;
/**
 * ...and only when at most this deep: kept params cross to main by structured clone, which
 * recurses; a 16 KiB `[[[[…]]]]` (7000 levels) overflowed main's stack while deserializing, and
 * the whole batch of frames was lost ('messageerror'), the responses behind it included.
 */
const KEEP_PARAMS_DEPTH = 64;
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

/** Whether a parsed JSON value nests at most `max` levels (recursion bounded by `max`). */
function depthAtMost(v: unknown, max: number): boolean {
  if (v === null || typeof v !== 'object') return true;
  if (max <= 0) return false;
  for (const x of Object.values(v)) if (!depthAtMost(x, max - 1)) return false;
  return true;
}

/** The progress fields of a progress notification, and small params kept whole. */
export function keepParams(
  out: Classified,
  method: string,
  params: object,
  frameBytes: number,
): void {
  const p = params as Record<string, unknown>;
  if (method === 'notifications/progress') {
    if (isId(p.progressToken)) out.progressToken = p.progressToken;
    if (typeof p.progress === 'number') out.progress = p.progress;
    if (typeof p.total === 'number') out.total = p.total;
  }
  if (frameBytes <= KEEP_PARAMS_BYTES && depthAtMost(params, KEEP_PARAMS_DEPTH))
    out.params = params;
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
export function classifyValue(value: unknown, frameBytes: number): Classified {
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
    if (params !== null && typeof params === 'object' && !Array.isArray(params)) {
      keepParams(out, msg.method, params, frameBytes);
    }
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
  try {
    value = JSON.parse(frame.toString('utf8'));
  } catch (e) {
    return { kind: 'parse-error', problem: shorten(e instanceof Error ? e.message : String(e)) };
  }
  return classifyValue(value, frame.length);
}
