/** What trace redaction replaces and why, rule by rule: the trace header's `redaction` and the
 *  trace bar read it. Pure data, no DOM, no Node. */

/**
 * What redaction replaces, rule by rule, and why (HARDENING.md 33). Only what is known to be
 * secret: ordinary payload text (`hello secret=abc` in a tool argument) is left as it was.
 */
export const REDACTION_RULES = {
  'env-value': 'an environment value of the server config (names are kept)',
  argument: "a secret argument of the server's command line (--token x, --api-key=x, NAME_KEY=x)",
  'app-token': "Pipescope's own browser-mode token",
  'auth-header':
    'the value of an Authorization, Proxy-Authorization, Cookie, Set-Cookie, X-Api-Key or X-Auth-Token header, or a Bearer / Basic credential',
  'secret-field':
    'the value of a JSON field named like a secret (token, apiKey, password, client_secret, …)',
  'url-credential': 'a secret-named URL parameter (?token=, &api_key=) or the password in a URL',
  'env-assignment':
    'an environment-style assignment of a secret-named variable (OPENAI_API_KEY=…, GITHUB_TOKEN=…)',
  'secret-assignment':
    'a secret-named setting (token=, password:) whose value is credential-shaped: 12+ characters mixing letters and digits, no spaces',
  'key-format':
    'a well-known key format: sk-…, sk_live_…, ghp_… / github_pat_…, AKIA… / ASIA…, xox…-, AIza…, a JWT, a PEM private key',
  'secret-flag': 'the value after a secret-named flag on a command line (--token x)',
} as const;

export type RedactionRule = keyof typeof REDACTION_RULES;

export interface RedactionCount {
  rule: RedactionRule;
  why: string;
  /** Values this rule replaced in the trace. */
  count: number;
}

/** What a trace's redaction replaced, per rule (the header's `redaction`). */
export interface TraceRedaction {
  rules: RedactionCount[];
  /** The counts are final (the recording finished); a trace cut short has those of its start. */
  final: boolean;
}
