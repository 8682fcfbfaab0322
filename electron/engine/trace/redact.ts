/**
 * Redaction for traces and exports (HARDENING.md 33): what is known to be secret becomes
 * `***`, rule by rule (REDACTION_RULES in shared/trace-format.ts, patterns in
 * redact-rules.ts): the server config's environment values and secret arguments, Pipescope's
 * browser-mode token, Authorization / Cookie-like header values, secret-named JSON fields and
 * URL parameters, environment-style secret assignments, credential-shaped values of
 * secret-named settings, and well-known key formats. Ordinary payload text stays as it was
 * (`hello secret=abc` in a tool argument is not a secret). Names are kept, so a reader still
 * sees *that* a secret was there; each replacement is counted per rule for the trace header.
 *
 * Owns: the process-wide registry of explicit secrets (`addSecret`). Fed by: browser mode
 * (its per-launch token) and each recorder (the session's env values and argument secrets).
 * Listens: the trace recorder and the exporters, through `Redactor`.
 */
import type { ProbeReport } from '../../../shared/probe-report.js';
import {
  REDACTED,
  REDACTION_RULES,
  type RedactionRule,
  type TraceRedaction,
} from '../../../shared/trace-format.js';
import {
  authHeaders,
  envAssignments,
  type Hit,
  isSecretName,
  keyFormats,
  NAMED_QUICK,
  secretAssignments,
  secretFields,
  secretFlags,
  urlCredentials,
} from './redact-rules.js';

export { isSecretName };

/** Shorter strings are not registered: replacing them everywhere would shred the text. */
const MIN_SECRET_CHARS = 6;
const globalSecrets = new Set<string>();

/** Registers a secret that must never appear in a trace or an export (the web token). */
export function addSecret(secret: string): void {
  if (secret.length >= MIN_SECRET_CHARS) globalSecrets.add(secret);
}

export function removeSecret(secret: string): void {
  globalSecrets.delete(secret);
}

type SecretKind = 'env-value' | 'argument';

export interface RedactorOptions {
  enabled: boolean;
  /** Secret strings of this session (env values, argument secrets). */
  secrets?: Iterable<string>;
}

export class Redactor {
  readonly enabled: boolean;
  /** Session secrets, with the rule that found them; the longest are replaced first. */
  private readonly secrets = new Map<string, SecretKind>();
  private sorted: [string, RedactionRule][] | null = null;
  private readonly counts = new Map<RedactionRule, number>();
  private readonly hit: Hit = (rule) => this.counts.set(rule, (this.counts.get(rule) ?? 0) + 1);

  constructor(o: RedactorOptions) {
    this.enabled = o.enabled;
    for (const s of o.secrets ?? []) this.addSecret(s);
  }

  addSecret(s: string, kind: SecretKind = 'argument'): void {
    if (s.length < MIN_SECRET_CHARS || s === REDACTED) return;
    // An env value also passed as an argument is still an env value.
    if (!this.secrets.has(s) || kind === 'env-value') this.secrets.set(s, kind);
    this.sorted = null;
  }

  /** Per rule, what was replaced so far, and why (the trace header's `redaction`). */
  summary(final: boolean): TraceRedaction {
    const rules = (Object.keys(REDACTION_RULES) as RedactionRule[]).map((rule) => ({
      rule,
      why: REDACTION_RULES[rule],
      count: this.counts.get(rule) ?? 0,
    }));
    return { rules, final };
  }

  /** Redacts free text: frames, stderr, finding messages, error messages. */
  text(s: string): string {
    if (!this.enabled || s.length === 0) return s;
    let out = keyFormats(this.replaceSecrets(s), this.hit);
    if (!NAMED_QUICK.test(out) && !out.includes('=') && !out.includes('://')) return out;
    out = authHeaders(out, this.hit);
    out = secretFields(out, this.hit);
    out = urlCredentials(out, this.hit);
    out = envAssignments(out, this.hit);
    if (NAMED_QUICK.test(out)) out = secretAssignments(out, this.hit);
    return out;
  }

  /** A command line (a process's, the server's): free text, and the value after a
   *  secret-named flag (`--token x`, `--api-key=x`) whatever it looks like. */
  command(s: string): string {
    if (!this.enabled) return s;
    const out = this.text(s);
    return NAMED_QUICK.test(out) ? secretFlags(out, this.hit) : out;
  }

  private replaceSecrets(s: string): string {
    if (this.sorted === null) {
      const all: [string, RedactionRule][] = [
        ...[...globalSecrets].map((g): [string, RedactionRule] => [g, 'app-token']),
        ...this.secrets,
      ];
      this.sorted = all.sort((a, b) => b[0].length - a[0].length);
    }
    let out = s;
    for (const [secret, rule] of this.sorted) {
      out = this.replaceAll(out, secret, rule);
      // The same secret inside a JSON string has its quotes and backslashes escaped.
      const escaped = JSON.stringify(secret).slice(1, -1);
      if (escaped !== secret) out = this.replaceAll(out, escaped, rule);
    }
    return out;
  }

  private replaceAll(s: string, secret: string, rule: RedactionRule): string {
    if (!s.includes(secret)) return s;
    const parts = s.split(secret);
    for (let i = 1; i < parts.length; i++) this.hit(rule);
    return parts.join(REDACTED);
  }

  /**
   * Redacts an argv: the value after a secret flag (`--token x`), `--token=x`, `NAME_KEY=x`,
   * and whatever `command` catches (Bearer values, URLs with `token=`). Values found this way
   * are also registered as secrets, so a server echoing them on stderr is redacted too.
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
        this.hit('argument');
        out.push(REDACTED);
        i += 1;
        continue;
      }
      if (eq > 0 && isSecretName(a.slice(0, eq))) {
        this.addSecret(a.slice(eq + 1));
        this.hit('argument');
        out.push(`${a.slice(0, eq + 1)}${REDACTED}`);
        continue;
      }
      out.push(this.command(a));
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
        command: this.command(report.server.command),
        args: this.args(report.server.args),
      },
      findings: report.findings.map((f) => ({
        ...f,
        message: this.text(f.message),
        ...(f.evidence === undefined ? {} : { evidence: this.evidence(f.evidence) }),
      })),
    };
  }

  /** A finding's evidence with every string in it redacted (command lines as such). */
  evidence<T extends object>(e: T): T {
    if (!this.enabled) return e;
    const walk = (v: unknown, depth: number, key: string): unknown => {
      if (typeof v === 'string') return key === 'command' ? this.command(v) : this.text(v);
      if (depth > 4 || v === null || typeof v !== 'object') return v;
      if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1, key));
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, depth + 1, k)]));
    };
    return walk(e, 0, '') as T;
  }

  /** Every environment value becomes `***` (names kept); values are registered as secrets. */
  env(env: Readonly<Record<string, string>>): Record<string, string> {
    if (!this.enabled) return { ...env };
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(env)) {
      this.addSecret(value, 'env-value');
      if (value !== '') this.hit('env-value');
      out[name] = REDACTED;
    }
    return out;
  }
}
