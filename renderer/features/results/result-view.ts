/**
 * A response line → what the result renderer draws (ResultContent.tsx): a JSON-RPC error, or a
 * result whose content blocks (tools/call `content`, resources/read `contents`, prompts/get
 * `messages`) become views — text as text, images as data: URIs only when they are plainly an
 * image in base64, audio as a labelled placeholder, resources and links by their uri — beside
 * `structuredContent` and `isError`. Pure; called only on a whole line the caller bounded (the
 * detail pane fetches at most WHOLE_MAX_BYTES of a frame).
 */
import { utf8Bytes } from '../../../shared/result-audit';

export type BlockView =
  | { kind: 'text'; role?: string; text: string; bytes: number }
  | {
      kind: 'image';
      role?: string;
      mimeType: string;
      /** A data: URI safe to put in <img src>; null with `problem` when it is not one. */
      src: string | null;
      problem?: string;
      bytes: number;
    }
  | { kind: 'audio'; role?: string; mimeType: string; bytes: number }
  | {
      kind: 'resource';
      role?: string;
      uri: string;
      mimeType: string | null;
      text: string | null;
      /** Base64 characters of a binary resource's blob. */
      blobBytes: number | null;
    }
  | {
      kind: 'resource_link';
      role?: string;
      uri: string;
      name: string | null;
      mimeType: string | null;
      description: string | null;
    }
  | { kind: 'other'; role?: string; type: string; value: unknown };

export interface ResultView {
  method: string;
  isError: boolean;
  /** Whether the method's result has content blocks (else only `result` is shown, as JSON). */
  hasBlocks: boolean;
  blocks: BlockView[];
  /** `structuredContent` when present. */
  structured: { value: unknown } | null;
  /** The whole `result` member. */
  result: unknown;
}

export type ResponseView =
  | { kind: 'result'; view: ResultView }
  | { kind: 'error'; code: number | null; message: string; data: unknown }
  | { kind: 'unparsed'; reason: string };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Raster and vector image types an <img> shows; anything else is not put in a data: URI. */
const IMAGE_MIME = /^image\/(png|jpeg|gif|webp|avif|bmp|x-icon|vnd\.microsoft\.icon|svg\+xml)$/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function imageView(b: Record<string, unknown>, role?: string): BlockView {
  const data = str(b.data) ?? '';
  const mimeType = str(b.mimeType) ?? '(no mimeType)';
  const base = { kind: 'image' as const, role, mimeType, bytes: data.length };
  if (!IMAGE_MIME.test(mimeType)) return { ...base, src: null, problem: 'not an image type' };
  if (data.length === 0 || data.length % 4 !== 0 || !BASE64.test(data)) {
    return { ...base, src: null, problem: 'data is not base64' };
  }
  return { ...base, src: `data:${mimeType.toLowerCase()};base64,${data}` };
}

function resourceView(r: Record<string, unknown>, role?: string): BlockView {
  return {
    kind: 'resource',
    role,
    uri: str(r.uri) ?? '(no uri)',
    mimeType: str(r.mimeType),
    text: str(r.text),
    blobBytes: typeof r.blob === 'string' ? r.blob.length : null,
  };
}

/** One content block (of a tool result or a prompt message). */
export function blockView(b: unknown, role?: string): BlockView {
  if (!isObject(b)) return { kind: 'other', role, type: '(not an object)', value: b };
  const type = str(b.type) ?? '(no type)';
  if (type === 'text' && typeof b.text === 'string') {
    return { kind: 'text', role, text: b.text, bytes: utf8Bytes(b.text) };
  }
  if (type === 'image') return imageView(b, role);
  if (type === 'audio') {
    return {
      kind: 'audio',
      role,
      mimeType: str(b.mimeType) ?? '(no mimeType)',
      bytes: str(b.data)?.length ?? 0,
    };
  }
  if (type === 'resource' && isObject(b.resource)) return resourceView(b.resource, role);
  if (type === 'resource_link') {
    return {
      kind: 'resource_link',
      role,
      uri: str(b.uri) ?? '(no uri)',
      name: str(b.name),
      mimeType: str(b.mimeType),
      description: str(b.description),
    };
  }
  return { kind: 'other', role, type, value: b };
}

function blocksOf(method: string, r: Record<string, unknown>): BlockView[] | null {
  if (method === 'tools/call') {
    return Array.isArray(r.content) ? r.content.map((b) => blockView(b)) : [];
  }
  if (method === 'resources/read') {
    return Array.isArray(r.contents)
      ? r.contents.map((c) => (isObject(c) ? resourceView(c) : blockView(c)))
      : [];
  }
  if (method === 'prompts/get') {
    if (!Array.isArray(r.messages)) return [];
    return r.messages.map((m) =>
      isObject(m) ? blockView(m.content, str(m.role) ?? undefined) : blockView(m),
    );
  }
  return null;
}

/** The view of a response line's text (`method`: the request's). */
export function responseView(method: string, text: string): ResponseView {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch (e) {
    return { kind: 'unparsed', reason: `not JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!isObject(msg)) return { kind: 'unparsed', reason: 'not a JSON-RPC response object' };
  if ('error' in msg) {
    const e = isObject(msg.error) ? msg.error : {};
    return {
      kind: 'error',
      code: typeof e.code === 'number' ? e.code : null,
      message: str(e.message) ?? '(no message)',
      data: e.data,
    };
  }
  if (!('result' in msg)) return { kind: 'unparsed', reason: 'neither result nor error' };
  const r = isObject(msg.result) ? msg.result : {};
  const blocks = blocksOf(method, r);
  return {
    kind: 'result',
    view: {
      method,
      isError: r.isError === true,
      hasBlocks: blocks !== null,
      blocks: blocks ?? [],
      structured: 'structuredContent' in r ? { value: r.structuredContent } : null,
      result: msg.result,
    },
  };
}

/** A request line's `params` (undefined when the text is not a request object). */
export function requestParams(text: string): unknown {
  try {
    const msg: unknown = JSON.parse(text);
    return isObject(msg) ? (msg.params ?? null) : undefined;
  } catch {
    return undefined;
  }
}

/** Text longer than either bound starts collapsed ("show all"). */
export const TEXT_COLLAPSE_CHARS = 4000;
export const TEXT_COLLAPSE_LINES = 40;

/** The collapsed head of a long text, or null when it is short enough to show whole. */
export function collapsedText(
  text: string,
  chars = TEXT_COLLAPSE_CHARS,
  lines = TEXT_COLLAPSE_LINES,
): string | null {
  let cut = Math.min(text.length, chars);
  let at = -1;
  for (let n = 0; n < lines; n++) {
    at = text.indexOf('\n', at + 1);
    if (at === -1 || at >= cut) break;
    if (n === lines - 1) cut = at;
  }
  if (cut >= text.length) return null;
  // Never split a surrogate pair.
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return text.slice(0, cut);
}

/**
 * The beginning of the first text block of a response line of which only the head was loaded:
 * the JSON string after the first `"text":` that follows `"content"`, decoded as far as the
 * head goes. Null when none is found. (A large answer is shown "as far as sensible" without
 * fetching it whole.)
 */
export function partialFirstText(head: string): string | null {
  const content = head.indexOf('"content"');
  if (content === -1) return null;
  const key = /"text"\s*:\s*"/g;
  key.lastIndex = content;
  const m = key.exec(head);
  if (!m) return null;
  let out = '';
  let i = m.index + m[0].length;
  while (i < head.length) {
    const c = head[i];
    if (c === '"') break;
    if (c !== '\\') {
      out += c;
      i += 1;
      continue;
    }
    const e = head[i + 1];
    if (e === undefined) break;
    if (e === 'u') {
      const hex = head.slice(i + 2, i + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) break; // cut by the page end
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 6;
      continue;
    }
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };
    out += simple[e] ?? e;
    i += 2;
  }
  return out;
}
