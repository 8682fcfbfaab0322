/**
 * Redaction for traces and exports (HARDENING.md 33): environment values, Authorization /
 * Cookie header values, tokens and keys in arguments and in frame / stderr text, and any
 * secret string registered explicitly (the browser-mode token), all become `***`; names are
 * kept so a reader still sees *that* a secret was there.
 *
 * Owns: the process-wide registry of explicit secrets (`addSecret`). Fed by: browser mode
 * (its per-launch token) and each recorder (the session's env values and argument secrets).
 * Listens: the trace recorder and the exporters, through `Redactor`.
 */
import type { ProbeReport } from '../../../shared/probe-report.js';
import { REDACTED } from '../../../shared/trace-format.js';

/** Shorter strings are not registered: replacing them everywhere would shred the text. */
const MIN_SECRET_CHARS = 6;
const globalSecrets = new Set<string>();

/** Registers a secret that must never appear in a trace or an export (e.g. the web token). */
export function addSecret(secret: string): void {
  if (secret.length >= MIN_SECRET_CHARS) globalSecrets.add(secret);
}

export function removeSecret(secret: string): void {
  globalSecrets.delete(secret);
}

/** Names that are not secrets although they look like one. */
const NOT_SECRET = new Set(['progresstoken', 'nexttoken', 'tokens', 'maxtokens', 'max_tokens']);

/**
 * Whether a key, flag or variable name holds a secret: token, secret, password, api key,
 * access key, private key, credentials, auth (as a whole word or `_`/`-`/`.` suffix), any
 * `*_KEY` / `*-key`, and camelCase `…Token` / `…Secret` / `…Password` / `…Key`.
 */
export function isSecretName(name: string): boolean {
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

/** A cheap pre-check: text without any of these cannot match a pattern below. */
const QUICK = /auth|cookie|bearer|basic|token|secret|passw|pwd|key|credential|session/i;
const HEADER =
  /\b((?:proxy-)?authorization|(?:set-)?cookie|x-api-key|x-auth-token)(\\?"?[ \t]*[:=][ \t]*\\?"?)([^"\\\r\n]+)/gi;
const BEARER = /\b(bearer)([ \t]+)([A-Za-z0-9._~+/=-]{4,})/gi;
const BASIC = /\b(Basic)([ \t]+)([A-Za-z0-9+/=]{8,})/g;
/*
 * Values are found by scanning, never by a regex over the value: a regex with a repeated
 * group over a 30 MiB JSON string overflows V8's backtracking stack (measured). The regexes
 * below match only a key and its separator; the value's end is found by a linear scan.
 */
/** `"name": "` in JSON. */
const JSON_KEY = /"([A-Za-z_$][\w$.-]*)"\s*:\s*"/g;
/** `\"name\": \"` in JSON inside a JSON string. */
const JSON_KEY_ESCAPED = /\\"([A-Za-z_$][\w$.-]*)\\"\s*:\s*\\"/g;
/** `name=` (env, query strings, `--name=`) and `name: ` (logs). */
const ASSIGN_KEY = /(?<![\w.])(-{0,2}[A-Za-z_][\w.-]*)(?:=|:[ \t]*)/g;
/** `--name value` and `-name value` on a command line or in a log line. */
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

/** End of an unquoted value: whitespace, quotes, backslash and separators end it. */
function bareValueEnd(s: string, i: number): number {
  let j = i;
  while (j < s.length && !/[\s"'&,;)}\]\\]/.test(s[j])) j += 1;
  return j;
}

/** Replaces the value after each key `re` matches whose name is a secret name. */
function redactValues(
  s: string,
  re: RegExp,
  valueEnd: (s: string, from: number) => number,
): string {
  let out = '';
  let last = 0;
  re.lastIndex = 0;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    if (!isSecretName(m[1])) continue;
    const start = re.lastIndex;
    const end = valueEnd(s, start);
    if (end === start || s.slice(start, end) === REDACTED) continue;
    out += s.slice(last, start) + REDACTED;
    last = end;
    re.lastIndex = end;
  }
  return last === 0 ? s : out + s.slice(last);
}

export interface RedactorOptions {
  enabled: boolean;
  /** Secret strings of this session (env values, argument secrets). */
  secrets?: Iterable<string>;
}

export class Redactor {
  readonly enabled: boolean;
  private readonly secrets = new Set<string>();

  constructor(o: RedactorOptions) {
    this.enabled = o.enabled;
    for (const s of o.secrets ?? []) this.addSecret(s);
  }

  addSecret(s: string): void {
    if (s.length >= MIN_SECRET_CHARS) this.secrets.add(s);
  }

  /** Redacts free text: frames, stderr, finding messages, error messages. */
  text(s: string): string {
    if (!this.enabled || s.length === 0) return s;
    let out = this.replaceSecrets(s);
    if (!QUICK.test(out)) return out;
    out = out.replace(HEADER, (_m, name: string, sep: string, value: string) =>
      value === REDACTED ? `${name}${sep}${value}` : `${name}${sep}${REDACTED}`,
    );
    out = out.replace(BEARER, `$1$2${REDACTED}`).replace(BASIC, `$1$2${REDACTED}`);
    out = redactValues(out, JSON_KEY, jsonStringEnd);
    out = redactValues(out, JSON_KEY_ESCAPED, escapedJsonStringEnd);
    out = redactValues(out, ASSIGN_KEY, bareValueEnd);
    out = out.replace(FLAG_VALUE, (m, pre: string, flag: string, gap: string) =>
      isSecretName(flag) ? `${pre}${flag}${gap}${REDACTED}` : m,
    );
    return out;
  }

  private replaceSecrets(s: string): string {
    let out = s;
    for (const secret of [...globalSecrets, ...this.secrets]) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
      // The same secret inside a JSON string has its quotes and backslashes escaped.
      const escaped = JSON.stringify(secret).slice(1, -1);
      if (escaped !== secret && out.includes(escaped)) out = out.split(escaped).join(REDACTED);
    }
    return out;
  }

  /**
   * Redacts an argv: the value after a secret flag (`--token x`), `--token=x`, `NAME_KEY=x`,
   * and whatever `text` catches (Bearer values, URLs with `token=`). Values found this way are
   * also registered as secrets, so a server echoing them on stderr is redacted too.
   */
  args(argv: readonly string[]): string[] {
    if (!this.enabled) return [...argv];
    const out: string[] = [];
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i];
      const eq = a.indexOf('=');
      if (/^--?[A-Za-z]/.test(a) && eq === -1 && isSecretName(a) && i + 1 < argv.length) {
        out.push(a);
        this.addSecret(argv[i + 1]);
        out.push(REDACTED);
        i += 1;
        continue;
      }
      if (eq > 0 && isSecretName(a.slice(0, eq))) {
        this.addSecret(a.slice(eq + 1));
        out.push(`${a.slice(0, eq + 1)}${REDACTED}`);
        continue;
      }
      out.push(this.text(a));
    }
    return out;
  }

  /** A `probe --json` report with its command, arguments and finding messages redacted. */
  report(report: ProbeReport): ProbeReport {
    if (!this.enabled) return report;
    return {
      ...report,
      server: {
        ...report.server,
        command: this.text(report.server.command),
        args: this.args(report.server.args),
      },
      findings: report.findings.map((f) => ({
        ...f,
        message: this.text(f.message),
        ...(f.evidence === undefined ? {} : { evidence: this.evidence(f.evidence) }),
      })),
    };
  }

  /** A finding's evidence with every string in it redacted (commands, the reader's, …). */
  evidence<T extends object>(e: T): T {
    if (!this.enabled) return e;
    const walk = (v: unknown, depth: number): unknown => {
      if (typeof v === 'string') return this.text(v);
      if (depth > 4 || v === null || typeof v !== 'object') return v;
      if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, depth + 1)]));
    };
    return walk(e, 0) as T;
  }

  /** Every environment value becomes `***` (names kept); values are registered as secrets. */
  env(env: Readonly<Record<string, string>>): Record<string, string> {
    if (!this.enabled) return { ...env };
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(env)) {
      this.addSecret(value);
      out[name] = REDACTED;
    }
    return out;
  }
}
