/**
 * The result audit (DESIGN.md "Results and host profiles"): what one answer to `tools/call`,
 * `resources/read` or `prompts/get` holds and whether it keeps the seed's result contract —
 * its bytes, its content blocks by kind and size, `isError`, whether it says it is incomplete
 * (`truncated`, `nextCursor`), base64 payloads inside text, text sent twice (in `content` and
 * again in `structuredContent`). Pure: the engine runs it on main for small answers and on its
 * audit thread for large ones; the renderer only shows what it made.
 */

/** The methods whose results are audited. */
export const AUDITED_METHODS = ['tools/call', 'resources/read', 'prompts/get'] as const;
export type AuditedMethod = (typeof AUDITED_METHODS)[number];

export function isAuditedMethod(m: string): m is AuditedMethod {
  return (AUDITED_METHODS as readonly string[]).includes(m);
}

/** Content blocks of one kind (`text`, `image`, `audio`, `resource`, `resource_link`, …). */
export interface BlockTally {
  kind: string;
  count: number;
  /** Payload bytes: a text's UTF-8 bytes, an image's or a blob's base64 characters. */
  bytes: number;
}

export interface ResultAudit {
  method: AuditedMethod;
  /** Bytes of the whole response line. */
  bytes: number;
  isError: boolean;
  blocks: BlockTally[];
  largestBlock: { kind: string; bytes: number } | null;
  /** UTF-8 bytes and characters of all text (text blocks, text resources, prompt texts). */
  textBytes: number;
  textChars: number;
  /** Tokens of that text, estimated at 4 characters a token (an estimate, said so). */
  estimatedTokens: number;
  /** Bytes of `structuredContent` as JSON (null: none). */
  structuredBytes: number | null;
  /** Text bytes sent twice: a text block's text found again as a string in structuredContent,
   *  or a text block that is structuredContent serialized. */
  duplicatedBytes: number;
  /** Runs of base64 (≥ 1 KiB, or a `data:…;base64,` URI) inside text: a download in content. */
  base64: { count: number; bytes: number };
  /** How the result says it is incomplete: `structuredContent.truncated`, `nextCursor`, … */
  incomplete: string[];
  /** Set when the audit could not read the result's body (the reason); bytes still hold. */
  partial?: string;
}

/** A run of base64 characters at least this long is a payload, not prose… */
const BASE64_RUN_MIN = 1024;
/** …if it looks encoded: at least this many distinct characters, of at least two of the
 *  classes upper / lower / digit-or-sign, in its first BASE64_SAMPLE characters. Encoded bytes
 *  use nearly all 64; `xxxx…` filler or a long run of one word does not (a base64 of zeros,
 *  `AAAA…`, is missed too: it carries nothing worth calling a download). */
const BASE64_MIN_DISTINCT = 8;
const BASE64_SAMPLE = 4096;
/** A `data:` URI's base64 header (its payload is scanned as a run). */
const DATA_URI = /data:[\w.+-]{1,80}\/[\w.+-]{1,80}(?:;[\w-]{1,40}=[^;,]{0,80})*;base64,/g;

/** Whether char code c is of the base64 alphabet (A-Z a-z 0-9 + /). */
function isBase64(c: number): boolean {
  return (
    (c >= 0x41 && c <= 0x5a) ||
    (c >= 0x61 && c <= 0x7a) ||
    (c >= 0x30 && c <= 0x39) ||
    c === 0x2b ||
    c === 0x2f
  );
}

/** Whether s[start, end) reads as encoded data rather than filler (see BASE64_MIN_DISTINCT). */
function looksEncoded(s: string, start: number, end: number): boolean {
  const seen = new Uint8Array(128);
  let distinct = 0;
  let classes = 0;
  const stop = Math.min(end, start + BASE64_SAMPLE);
  for (let i = start; i < stop; i++) {
    const c = s.charCodeAt(i);
    if (seen[c]) continue;
    seen[c] = 1;
    distinct++;
    classes |= c >= 0x61 ? 1 : c >= 0x41 ? 2 : 4;
    if (distinct >= BASE64_MIN_DISTINCT && (classes & (classes - 1)) !== 0) return true;
  }
  return false;
}

/** Base64 payloads in a text, in one pass: runs of BASE64_RUN_MIN+ characters that look encoded,
 *  and data URIs (any length). A regex such as /[A-Za-z0-9+/]{1024,}/ would be quadratic on
 *  runs just short. */
export function base64Runs(s: string): { count: number; bytes: number } {
  let count = 0;
  let bytes = 0;
  const uriAt = new Set<number>();
  DATA_URI.lastIndex = 0;
  for (let m = DATA_URI.exec(s); m !== null; m = DATA_URI.exec(s)) uriAt.add(m.index + m[0].length);
  const n = s.length;
  let i = 0;
  while (i < n) {
    if (!isBase64(s.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && isBase64(s.charCodeAt(i))) i++;
    const run = i - start;
    let pad = 0;
    while (pad < 2 && i < n && s.charCodeAt(i) === 0x3d) {
      pad++;
      i++;
    }
    if (uriAt.has(start) || (run >= BASE64_RUN_MIN && looksEncoded(s, start, start + run))) {
      count += 1;
      bytes += run + pad;
    }
  }
  return { count, bytes };
}
/** Strings of structuredContent shorter than this are never counted as duplicates. */
const DUPLICATE_MIN_CHARS = 256;
const WALK_MAX_DEPTH = 32;
const WALK_MAX_NODES = 100_000;
const TRUNCATION_WORDS = /\b(truncated|cut off|omitted|more results|next page|remaining)\b/i;
const TEXT_TAIL_CHARS = 400;

/** UTF-8 bytes of a JS string (no Buffer here: shared runs in the renderer too). */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

class Tally {
  readonly byKind = new Map<string, BlockTally>();
  largest: { kind: string; bytes: number } | null = null;
  texts: string[] = [];
  textBytes = 0;
  textChars = 0;
  base64 = { count: 0, bytes: 0 };
  truncatedText = false;

  block(kind: string, bytes: number): void {
    const t = this.byKind.get(kind) ?? { kind, count: 0, bytes: 0 };
    t.count += 1;
    t.bytes += bytes;
    this.byKind.set(kind, t);
    if (!this.largest || bytes > this.largest.bytes) this.largest = { kind, bytes };
  }

  text(s: string): number {
    const b = utf8Bytes(s);
    this.texts.push(s);
    this.textBytes += b;
    this.textChars += s.length;
    const runs = base64Runs(s);
    this.base64.count += runs.count;
    this.base64.bytes += runs.bytes;
    if (TRUNCATION_WORDS.test(s.slice(-TEXT_TAIL_CHARS))) this.truncatedText = true;
    return b;
  }

  /** One content block (tools/call content, a prompt message's content). */
  content(b: unknown): void {
    if (!isObject(b)) {
      this.block('invalid', 0);
      return;
    }
    const kind = typeof b.type === 'string' ? b.type.slice(0, 40) : 'untyped';
    let bytes = 0;
    if (kind === 'text' && typeof b.text === 'string') bytes = this.text(b.text);
    else if ((kind === 'image' || kind === 'audio') && typeof b.data === 'string') {
      bytes = b.data.length;
    } else if (kind === 'resource' && isObject(b.resource)) bytes = this.resource(b.resource);
    this.block(kind, bytes);
  }

  /** An embedded resource or a resources/read entry: its text's bytes, or its blob's. */
  resource(r: Record<string, unknown>): number {
    if (typeof r.text === 'string') return this.text(r.text);
    if (typeof r.blob === 'string') return r.blob.length;
    return 0;
  }
}

/** Long strings inside structuredContent (bounded walk). */
function longStrings(v: unknown, out: string[], budget = { nodes: WALK_MAX_NODES }, depth = 0) {
  if (budget.nodes-- <= 0 || depth > WALK_MAX_DEPTH) return;
  if (typeof v === 'string') {
    if (v.length >= DUPLICATE_MIN_CHARS) out.push(v);
  } else if (Array.isArray(v)) {
    for (const x of v) longStrings(x, out, budget, depth + 1);
  } else if (isObject(v)) {
    for (const x of Object.values(v)) longStrings(x, out, budget, depth + 1);
  }
}

function duplicated(texts: readonly string[], structured: unknown, structuredJson: string): number {
  const inStructured = new Set<string>();
  const strings: string[] = [];
  longStrings(structured, strings);
  for (const s of strings) inStructured.add(s);
  let n = 0;
  for (const t of texts) {
    if (t.length < DUPLICATE_MIN_CHARS) continue;
    if (inStructured.has(t) || t === structuredJson) n += utf8Bytes(t);
  }
  return n;
}

/**
 * Audits one result. `result` is the response's `result` member (already parsed); `bytes` the
 * response line's. An answer that is a JSON-RPC error has no result to audit: not called.
 */
export function auditResult(method: AuditedMethod, result: unknown, bytes: number): ResultAudit {
  const t = new Tally();
  const r = isObject(result) ? result : {};
  if (method === 'tools/call' && Array.isArray(r.content)) {
    for (const b of r.content) t.content(b);
  } else if (method === 'resources/read' && Array.isArray(r.contents)) {
    for (const c of r.contents) t.block('contents', isObject(c) ? t.resource(c) : 0);
  } else if (method === 'prompts/get' && Array.isArray(r.messages)) {
    for (const m of r.messages) t.content(isObject(m) ? m.content : null);
  }
  const structured = r.structuredContent;
  let structuredBytes: number | null = null;
  let duplicatedBytes = 0;
  let partial: string | undefined;
  if (structured !== undefined) {
    try {
      const json = JSON.stringify(structured) ?? 'null';
      structuredBytes = utf8Bytes(json);
      duplicatedBytes = duplicated(t.texts, structured, json);
    } catch {
      // Nested deeper than a stack (the wire allows it; JSON.parse took it).
      partial = 'structuredContent nested too deep to measure';
    }
  }
  const incomplete: string[] = [];
  const s = isObject(structured) ? structured : {};
  if (s.truncated === true) incomplete.push('structuredContent.truncated');
  if (r.truncated === true) incomplete.push('truncated');
  if (typeof r.nextCursor === 'string') incomplete.push('nextCursor');
  if (typeof s.nextCursor === 'string') incomplete.push('structuredContent.nextCursor');
  if (t.truncatedText) incomplete.push('its text says so');
  return {
    method,
    bytes,
    isError: r.isError === true,
    blocks: [...t.byKind.values()],
    largestBlock: t.largest,
    textBytes: t.textBytes,
    textChars: t.textChars,
    estimatedTokens: Math.ceil(t.textChars / 4),
    structuredBytes,
    duplicatedBytes,
    base64: t.base64,
    incomplete,
    ...(partial && { partial }),
  };
}

/** The audit of an answer whose body was not read (only its size is known). */
export function bytesOnlyAudit(method: AuditedMethod, bytes: number, why: string): ResultAudit {
  return {
    method,
    bytes,
    isError: false,
    blocks: [],
    largestBlock: null,
    textBytes: 0,
    textChars: 0,
    estimatedTokens: 0,
    structuredBytes: null,
    duplicatedBytes: 0,
    base64: { count: 0, bytes: 0 },
    incomplete: [],
    partial: why,
  };
}
