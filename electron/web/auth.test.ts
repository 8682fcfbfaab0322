import { describe, expect, it } from 'vitest';
import { allowedHosts, tokenMatches } from './auth.js';

describe('auth', () => {
  it('compares tokens by bytes and rejects other lengths without throwing', () => {
    const expected = Buffer.from('a'.repeat(43));
    expect(tokenMatches(expected, 'a'.repeat(43))).toBe(true);
    expect(tokenMatches(expected, 'a'.repeat(42))).toBe(false);
    expect(tokenMatches(expected, `${'a'.repeat(42)}é`)).toBe(false);
    expect(tokenMatches(expected, undefined)).toBe(false);
  });

  it('answers to loopback names with our port only', () => {
    const hosts = allowedHosts(4321, '127.0.0.1');
    expect([...hosts].sort()).toEqual(['127.0.0.1:4321', '[::1]:4321', 'localhost:4321']);
    const wildcard = allowedHosts(4321, '0.0.0.0');
    expect(wildcard.has('0.0.0.0:4321')).toBe(false);
  });
});
