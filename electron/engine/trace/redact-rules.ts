/**
 * The patterns behind redaction (redact.ts), one function per rule of REDACTION_RULES
 * (shared/trace-format.ts). Pure and stateless: each takes a text and a `hit` callback that
 * counts one replaced value, and returns the text with those values as `***`.
 *
 * Linear on hostile input: every regex either has no repetition before a fixed suffix, or
 * starts only at a boundary (a lookbehind), so a run such as `eyJeyJeyJ…` is scanned once
 * rather than once per position. Values inside JSON and after `=` are found by scanning, never
 * by a regex over the value: a repeated group over a 30 MiB JSON string overflows V8's
 * backtracking stack (measured).
 */
import { REDACTED, type RedactionRule } from '../../../shared/trace-format.js';

export type Hit = (rule: RedactionRule) => void;

/** Names that are not secrets although they look like one. */
const NOT_SECRET = new Set(['progresstoken', 'nexttoken', 'tokens', 'maxtokens', 'max_tokens']);

/**
 * Whether a key, flag or variable name holds a secret: token, secret, password, api key,
 * access key, private key, credentials, auth (as a whole word or `_`/`-`/`.` suffix), any
 * `*_KEY` / `*-key`, and camelCase `…Token` / `…Secret` / `…Password` / `…Key`.
 */
export function isSecretName(name: string): boolean {
  // A large frame repeats the same few keys hundreds of thousands of times.
  const known = nameCache.get(name);
  if (known !== undefined) return known;
  const answer = judgeName(name);
  if (nameCache.size >= NAME_CACHE_MAX) nameCache.clear();
  nameCache.set(name, answer);
  return answer;
}

const NAME_CACHE_MAX = 4096;
const nameCache = new Map<string, boolean>();

function judgeName(name: string): boolean {
  const lower = name.toLowerCase().replace(/^-+/, '');
  if (NOT_SECRET.has(lower)) return false;
  if (
    /(?:^|[_.-])(?:token|secret|password|passwd|pwd|apikey|api[_-]key|access[_-]?key|private[_-]?key|client[_-]?secret|credentials?|auth|session[_-]?id)$/.test(
      lower,
    )
  )
    return true;
  if (/[_-]key$/.test(lower)) return true;
  return /[a-z0-9](?:Token|Secret|Password|Key|Credentials?)$/.test(name.replace(/^-+/, ''));
}

// ---- well-known key formats ----

/** Each starts at a boundary; all are case-sensitive, as the issuers print them. */
const KEY_FORMATS: readonly RegExp[] = [
  // OpenAI / Anthropic style (sk-…, sk-proj-…, sk-ant-…)
  /(?<![\w-])sk-[A-Za-z0-9_-]{20,}/g,
  // Stripe secret and restricted keys
  /(?<![\w-])[sr]k_(?:live|test)_[A-Za-z0-9]{16,}/g,
  // GitHub tokens
  /(?<![\w-])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g,
  // AWS access key ids
  /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/g,
  // Slack tokens
  /(?<![\w-])xox[abposre]-[A-Za-z0-9-]{10,}/g,
  // Google API keys
  /(?<![\w-])AIza[\w-]{35}/g,
  // JWTs: three base64url parts, the first two JSON objects: `{"` and a key's first character
  // encode as eyI…eyL (eyJ for a letter).
  /(?<![\w-])ey[IJKL][\w-]{4,}\.ey[IJKL][\w-]{4,}\.[\w-]{4,}/g,
];

const PEM_BEGIN = /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----/y;
const PEM_END = /-----END [A-Z ]{0,40}PRIVATE KEY-----/y;
/** A PEM block longer than this is not taken for a key (a BEGIN with no END stays). */
const PEM_MAX_CHARS = 16 * 1024;

/** PEM private key blocks, by scanning: each END is looked at once, not once per BEGIN (many
 *  BEGINs and no END would otherwise cost the square of the text). */
function pemBlocks(s: string, hit: Hit): string {
  const endsAt = (i: number): number => {
    PEM_END.lastIndex = i;
    return PEM_END.test(s) ? PEM_END.lastIndex : -1;
  };
  let out = '';
  let last = 0;
  let from = 0;
  let end = -2; // the next "-----END " examined (-2: none yet; -1: none left)
  for (;;) {
    const begin = s.indexOf('-----BEGIN ', from);
    if (begin === -1) break;
    from = begin + 11;
    PEM_BEGIN.lastIndex = begin;
    if (!PEM_BEGIN.test(s)) continue;
    const body = PEM_BEGIN.lastIndex;
    // Each END position is examined once: they only move forward.
    while (end !== -1 && (end < body || endsAt(end) === -1))
      end = s.indexOf('-----END ', end < body ? body : end + 9);
    if (end === -1) break;
    if (end - begin > PEM_MAX_CHARS) continue;
    hit('key-format');
    out += s.slice(last, begin) + REDACTED;
    last = endsAt(end);
    from = last;
  }
  return last === 0 ? s : out + s.slice(last);
}

/** Text that cannot hold any key format (a cheap test before the regexes run). */
const KEY_QUICK = /sk-|[sr]k_|gh[pousr]_|github_pat_|AKIA|ASIA|xox|AIza|ey[IJKL]|PRIVATE KEY/;

export function keyFormats(s: string, hit: Hit): string {
  if (!KEY_QUICK.test(s)) return s;
  let out = s.includes('PRIVATE KEY') ? pemBlocks(s, hit) : s;
  for (const re of KEY_FORMATS) {
    out = out.replace(re, () => {
      hit('key-format');
      return REDACTED;
    });
  }
  return out;
}

// ---- headers and credentials ----

const HEADER =
  /\b((?:proxy-)?authorization|(?:set-)?cookie|x-api-key|x-auth-token)(\\?"?[ \t]*[:=][ \t]*\\?"?)([^"\\\r\n]+)/gi;
/** `Bearer <token68>`, as a header or a log prints it (not prose: "the bearer token"). */
const BEARER = /\b(Bearer|BEARER)([ \t]+)([A-Za-z0-9._~+/-]{8,}=*)/g;
const BASIC = /\b(Basic|BASIC)([ \t]+)([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/g;

/** Whether `b64` is a Basic credential: base64 of printable `user:password`. */
function isBasicCredential(b64: string): boolean {
  if (b64.length % 4 !== 0) return false;
  const text = Buffer.from(b64, 'base64').toString('latin1');
  return text.includes(':') && /^[\x20-\x7e]+$/.test(text);
}

export function authHeaders(s: string, hit: Hit): string {
  if (!/auth|cookie|bearer|basic|api-key/i.test(s)) return s;
  return s
    .replace(HEADER, (m, name: string, sep: string, value: string) => {
      if (value === REDACTED) return m;
      hit('auth-header');
      return `${name}${sep}${REDACTED}`;
    })
    .replace(BEARER, (_m, word: string, gap: string) => {
      hit('auth-header');
      return `${word}${gap}${REDACTED}`;
    })
    .replace(BASIC, (m, word: string, gap: string, value: string) => {
      if (!isBasicCredential(value)) return m;
      hit('auth-header');
      return `${word}${gap}${REDACTED}`;
    });
}

// ---- values after a key ----

/** `"name": "` in JSON. */
const JSON_KEY = /"([A-Za-z_$][\w$.-]*)"\s*:\s*"/g;
/** `\"name\": \"` in JSON inside a JSON string. */
const JSON_KEY_ESCAPED = /\\"([A-Za-z_$][\w$.-]*)\\"\s*:\s*\\"/g;
/** A URL parameter (`?token=`, `&api_key=`, `#access_token=`, `;sig=`). */
const URL_PARAM = /[?&#;]([A-Za-z_][\w.-]*)=/g;
/** `scheme://user:password@` (starting where a scheme can: not inside a run such as a.b.c) */
const URL_PASSWORD = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/[^\s:/@"'\\]+:)([^\s/@"'\\]+)@/gi;
/** An environment-style assignment: `OPENAI_API_KEY=`. */
const ENV_ASSIGN = /(?<![\w.$-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{3,})=/g;
/** `name=` or `name: ` in a log line or a config (the value must look like a credential). */
const ASSIGN_KEY = /(?<![\w.$-])(-{0,2}[A-Za-z_][\w.-]*)(?:=|:[ \t]*)/g;
/** `--name value` and `-name value` on a command line. */
const FLAG_VALUE = /(^|[\s"'])(--?[A-Za-z][\w.-]*)([ \t]+)([^\s"'\\-][^\s"'\\]*)/g;

/** End of a JSON string's body starting at `i` (the index of its closing quote). */
function jsonStringEnd(s: string, i: number): number {
  let j = i;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c === 0x5c) j += 2;
    else if (c === 0x22) return j;
    else j += 1;
  }
  return s.length;
}

/** The same for a JSON string written inside another JSON string (`\"…\"`). */
function escapedJsonStringEnd(s: string, i: number): number {
  let j = i;
  let innerEscape = false;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c === 0x22) return j; // an unescaped quote ends the outer string: stop there
    const decoded = c === 0x5c ? s.charCodeAt(j + 1) : c;
    const width = c === 0x5c ? 2 : 1;
    if (innerEscape) innerEscape = false;
    else if (decoded === 0x5c) innerEscape = true;
    else if (decoded === 0x22) return j;
    j += width;
  }
  return s.length;
}

const BARE_END = /[\s"'&,;)}\]\\#]/;

/** End of an unquoted value: whitespace, quotes, backslash and separators end it. */
function bareValueEnd(s: string, i: number): number {
  let j = i;
  while (j < s.length && !BARE_END.test(s[j])) j += 1;
  return j;
}

/** A value that looks like a credential rather than a word: 12+ characters of a token's
 *  alphabet, letters and digits both. */
export function credentialShaped(v: string): boolean {
  return v.length >= 12 && /^[A-Za-z0-9._~+/=-]+$/.test(v) && /[A-Za-z]/.test(v) && /\d/.test(v);
}

/**
 * Replaces the value after each key `re` matches (group 1: the name) whose name `acceptName`
 * takes and whose value `acceptValue` takes. A value is scanned only for an accepted name, and
 * the scan resumes after it either way: each character is scanned once (`a=a=a=…` or
 * `token=token=…` would otherwise cost the square of their length).
 */
function redactValues(
  s: string,
  re: RegExp,
  valueEnd: (s: string, from: number) => number,
  acceptName: (name: string) => boolean,
  rule: RedactionRule,
  hit: Hit,
  acceptValue: (value: string) => boolean = () => true,
): string {
  let out = '';
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    if (!acceptName(m[1])) continue;
    const start = re.lastIndex;
    const end = valueEnd(s, start);
    const value = s.slice(start, end);
    if (end > start) re.lastIndex = end;
    if (end === start || value === REDACTED || !acceptValue(value)) continue;
    hit(rule);
    out += s.slice(last, start) + REDACTED;
    last = end;
  }
  return last === 0 ? s : out + s.slice(last);
}

const byName = (name: string): boolean => isSecretName(name);

/** Secret-named JSON fields, plain and escaped inside a JSON string. */
export function secretFields(s: string, hit: Hit): string {
  const out = redactValues(s, JSON_KEY, jsonStringEnd, byName, 'secret-field', hit);
  if (!out.includes('\\"')) return out;
  return redactValues(out, JSON_KEY_ESCAPED, escapedJsonStringEnd, byName, 'secret-field', hit);
}

export function urlCredentials(s: string, hit: Hit): string {
  let out = s.includes('=')
    ? redactValues(s, URL_PARAM, bareValueEnd, byName, 'url-credential', hit)
    : s;
  if (out.includes('://') && out.includes('@'))
    out = out.replace(URL_PASSWORD, (m, head: string, password: string) => {
      if (password === REDACTED) return m;
      hit('url-credential');
      return `${head}${REDACTED}@`;
    });
  return out;
}

export function envAssignments(s: string, hit: Hit): string {
  if (!s.includes('=')) return s;
  return redactValues(s, ENV_ASSIGN, bareValueEnd, byName, 'env-assignment', hit);
}

export function secretAssignments(s: string, hit: Hit): string {
  return redactValues(
    s,
    ASSIGN_KEY,
    bareValueEnd,
    byName,
    'secret-assignment',
    hit,
    credentialShaped,
  );
}

/** On a command line: `--token x`, and `--token=x` whatever x looks like. */
export function secretFlags(s: string, hit: Hit): string {
  const out = s.replace(FLAG_VALUE, (m, pre: string, flag: string, gap: string, v: string) => {
    if (!isSecretName(flag) || v === REDACTED) return m;
    hit('secret-flag');
    return `${pre}${flag}${gap}${REDACTED}`;
  });
  return redactValues(
    out,
    /(?<![\w.-])(--?[A-Za-z][\w.-]*)=/g,
    bareValueEnd,
    byName,
    'secret-flag',
    hit,
  );
}

/** A cheap pre-check: text without any of these has no secret-named key or header. */
export const NAMED_QUICK =
  /auth|cookie|bearer|basic|token|secret|passw|pwd|key|credential|session/i;
