/** Keyboard shortcuts: the table shown by `?` and the guard that ignores keys while typing. */

export const SHORTCUTS = [
  { key: 'c', action: 'Cancel the selected request, or the most recent in-flight one' },
  { key: 'r', action: 'Replay the selected request (or the most recent one)' },
  { key: 'p', action: 'Toggle the reader between paused and drain' },
  { key: '?', action: 'Show or hide this list' },
  { key: 'Esc', action: 'Close this list or the frame viewer' },
] as const;

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  target: EventTarget | null;
}

/** Keys typed into a field, or with a modifier, are not shortcuts. */
export function isShortcutEvent(e: KeyLike): boolean {
  if (e.ctrlKey || e.metaKey || e.altKey) return false;
  const el = e.target as { tagName?: string; isContentEditable?: boolean } | null;
  if (!el) return true;
  if (el.isContentEditable) return false;
  const tag = (el.tagName ?? '').toUpperCase();
  return tag !== 'INPUT' && tag !== 'TEXTAREA' && tag !== 'SELECT';
}
