import { describe, expect, it } from 'vitest';
import { isShortcutEvent } from './shortcuts';

const key = (
  target: unknown,
  mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {},
) => ({
  key: 'c',
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  ...mods,
  target: target as EventTarget | null,
});

describe('isShortcutEvent', () => {
  it('takes keys on the page body', () => {
    expect(isShortcutEvent(key({ tagName: 'BODY' }))).toBe(true);
    expect(isShortcutEvent(key(null))).toBe(true);
    expect(isShortcutEvent(key({ tagName: 'button' }))).toBe(true);
  });

  it('ignores keys typed into fields', () => {
    for (const tagName of ['INPUT', 'textarea', 'SELECT']) {
      expect(isShortcutEvent(key({ tagName }))).toBe(false);
    }
    expect(isShortcutEvent(key({ tagName: 'DIV', isContentEditable: true }))).toBe(false);
  });

  it('ignores keys with modifiers (copy, browser shortcuts)', () => {
    expect(isShortcutEvent(key({ tagName: 'BODY' }, { ctrlKey: true }))).toBe(false);
    expect(isShortcutEvent(key({ tagName: 'BODY' }, { metaKey: true }))).toBe(false);
  });
});
