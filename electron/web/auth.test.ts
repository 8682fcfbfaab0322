import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { allowedHosts, authenticate, tokenMatches } from './auth.js';

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

  it('takes the Authorization scheme in any case (bearer, Bearer, BEARER), never a wrong token', () => {
    const token = 'b'.repeat(43);
    const expected = Buffer.from(token);
    const url = new URL('http://127.0.0.1:1/');
    const req = (authorization: string) => ({ headers: { authorization } }) as IncomingMessage;
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR'])
      expect(authenticate(req(`${scheme} ${token}`), url, expected, 1)).toBe('header');
    expect(authenticate(req(`bearer ${'c'.repeat(43)}`), url, expected, 1)).toBeNull();
    expect(authenticate(req(`Basic ${token}`), url, expected, 1)).toBeNull();
    expect(authenticate(req(`bearer${token}`), url, expected, 1)).toBeNull();
  });
});
