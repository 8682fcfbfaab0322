/**
 * Redaction under hostile input (fast-check): a planted key-format secret or a registered env
 * value never survives, whatever text surrounds it (raw, or inside JSON); ordinary payload
 * text, secret-sounding words included, comes back unchanged; a second pass changes nothing;
 * and nothing throws.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Redactor } from './redact.js';

const on = (secrets: string[] = []): Redactor => new Redactor({ enabled: true, secrets });

const chars = (alphabet: string, min: number, max: number): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(''));

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const B64URL = `${ALNUM}_-`;

/** Keys in the formats issuers print (the shapes, not real keys). */
const keyFormat: fc.Arbitrary<string> = fc.oneof(
  chars(B64URL, 20, 48).map((s) => `sk-${s}`),
  chars(B64URL, 20, 48).map((s) => `sk-proj-${s}`),
  fc
    .tuple(fc.constantFrom('sk', 'rk'), fc.constantFrom('live', 'test'), chars(ALNUM, 16, 40))
    .map(([a, b, s]) => `${a}_${b}_${s}`),
  fc
    .tuple(fc.constantFrom('p', 'o', 'u', 's', 'r'), chars(ALNUM, 36, 40))
    .map(([k, s]) => `gh${k}_${s}`),
  chars(`${ALNUM}_`, 22, 60).map((s) => `github_pat_${s}`),
  fc
    .tuple(fc.constantFrom('AKIA', 'ASIA'), chars(UPPER_DIGITS, 16, 16))
    .map(([p, s]) => `${p}${s}`),
  fc
    .tuple(fc.constantFrom('a', 'b', 'p', 'o', 's', 'r'), chars(`${ALNUM}-`, 10, 40))
    .map(([k, s]) => `xox${k}-${s}`),
  chars(B64URL, 35, 35).map((s) => `AIza${s}`),
  fc.tuple(fc.dictionary(fc.string(), fc.string()), chars(B64URL, 8, 40)).map(([claims, sig]) => {
    const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: 'x', ...claims })}.${sig}`;
  }),
);

/** Anything, including what looks like JSON, escapes, U+2028 and emoji. */
const anyText = fc.string({ unit: 'grapheme', maxLength: 40 });

/** Words of ordinary payloads, secret-sounding ones among them. */
const ordinaryWord = fc.oneof(
  fc.constantFrom(
    'hello',
    'secret=abc',
    'token: short',
    'password: hunter2',
    'the bearer of news',
    'Basic settings',
    '--token x',
    'keyboard',
    'max_tokens: 100',
    'progressToken',
    'sk-short',
    'AKIA-not',
    'eyJ',
    'https://example.test/a?page=2',
    'ünïcødé',
    '🙂',
    '\u2028',
    'a\\nb',
    '"quoted"',
    '{}',
  ),
  fc.stringMatching(/^[a-z]{1,10}$/),
);
const ordinaryText = fc.array(ordinaryWord, { maxLength: 20 }).map((w) => w.join(' '));

function toolCall(text: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text } },
  });
}

describe('Redactor (properties)', () => {
  it('a key-format secret never survives, raw or inside JSON, whatever surrounds it', () => {
    fc.assert(
      fc.property(anyText, keyFormat, anyText, (before, key, after) => {
        const raw = `${before} ${key} ${after}`;
        expect(on().text(raw)).not.toContain(key);
        expect(on().text(toolCall(raw))).not.toContain(key);
      }),
      { numRuns: 400 },
    );
  });

  it('a registered env value never survives, raw or JSON-escaped', () => {
    const value = fc
      .string({ unit: 'grapheme', minLength: 6, maxLength: 24 })
      .filter((v) => !v.includes('*') && v.trim().length >= 6);
    fc.assert(
      fc.property(anyText, value, anyText, (before, secret, after) => {
        const r = on();
        r.env({ SETTING: secret });
        const raw = `${before}${secret}${after}`;
        expect(r.text(raw)).not.toContain(secret);
        const json = toolCall(raw);
        const escaped = JSON.stringify(secret).slice(1, -1);
        expect(r.text(json)).not.toContain(escaped);
      }),
      { numRuns: 300 },
    );
  });

  it('ordinary payload text, secret-sounding words included, comes back unchanged', () => {
    fc.assert(
      fc.property(ordinaryText, (text) => {
        const r = on();
        expect(r.text(text)).toBe(text);
        expect(r.text(toolCall(text))).toBe(toolCall(text));
        expect(r.summary(true).rules.every((x) => x.count === 0)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('is idempotent and never throws, on any text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc.tuple(anyText, keyFormat, ordinaryText).map((p) => p.join('=')),
        ),
        (text) => {
          const once = on().text(text);
          expect(on().text(once)).toBe(once);
          expect(on().command(once)).toBe(on().command(on().command(once)));
        },
      ),
      { numRuns: 500 },
    );
  });
});
