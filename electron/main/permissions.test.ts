import { describe, expect, it } from 'vitest';
import { isPermissionAllowed } from './permissions.js';

const isApp = (u: string): boolean => u.startsWith('app://pipescope/');

describe('renderer permission policy', () => {
  it('allows only sanitized clipboard writes, only from our own page', () => {
    expect(
      isPermissionAllowed('clipboard-sanitized-write', 'app://pipescope/index.html', isApp),
    ).toBe(true);
    expect(isPermissionAllowed('clipboard-sanitized-write', 'https://evil.test/', isApp)).toBe(
      false,
    );
  });

  it('refuses everything else', () => {
    for (const p of [
      'clipboard-read',
      'media',
      'geolocation',
      'notifications',
      'openExternal',
      'fullscreen',
      'hid',
      'serial',
    ]) {
      expect(isPermissionAllowed(p, 'app://pipescope/index.html', isApp)).toBe(false);
    }
  });
});
