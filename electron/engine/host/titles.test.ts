import { describe, expect, it } from 'vitest';
import { distinctTitle } from './titles.js';

describe('distinctTitle', () => {
  it('keeps a name nobody uses', () => {
    expect(distinctTitle('healthy', [])).toBe('healthy');
    expect(distinctTitle('healthy', ['oversized-result', 'healthy #2'])).toBe('healthy');
  });

  it('numbers the second and later sessions of one name from 2', () => {
    expect(distinctTitle('healthy', ['healthy'])).toBe('healthy #2');
    expect(distinctTitle('healthy', ['healthy', 'healthy #2'])).toBe('healthy #3');
  });

  it('gives a closed number again, the smallest free one', () => {
    expect(distinctTitle('healthy', ['healthy', 'healthy #3'])).toBe('healthy #2');
  });

  it('compares whole names only', () => {
    expect(distinctTitle('node', ['node.js', 'Node', 'node #x'])).toBe('node');
    expect(distinctTitle('trace.jsonl', ['trace.jsonl'])).toBe('trace.jsonl #2');
  });

  it('gives ten sessions of one name ten different names', () => {
    const titles: string[] = [];
    for (let i = 0; i < 10; i++) titles.push(distinctTitle('node', titles));
    expect(new Set(titles).size).toBe(10);
    expect(titles.slice(0, 3)).toEqual(['node', 'node #2', 'node #3']);
  });
});
