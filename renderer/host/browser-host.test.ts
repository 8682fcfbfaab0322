import { describe, expect, it } from 'vitest';
import { withoutToken } from './browser-host';

describe('withoutToken', () => {
  it('drops the token from the page address and keeps the rest', () => {
    expect(withoutToken('?token=abc')).toBe('');
    expect(withoutToken('?a=1&token=abc&b=2')).toBe('?a=1&b=2');
    expect(withoutToken('?trace=x.jsonl')).toBe('?trace=x.jsonl');
    expect(withoutToken('')).toBe('');
  });
});
