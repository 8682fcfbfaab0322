import { describe, expect, it } from 'vitest';
import {
  APP_ENTRY_URL,
  decideNavigation,
  decideWindowOpen,
  externalUrl,
  isAppUrl,
  projectPageUrl,
} from './navigation.js';

describe('isAppUrl', () => {
  it('accepts our UI', () => {
    expect(isAppUrl(APP_ENTRY_URL)).toBe(true);
    expect(isAppUrl('app://pipescope/')).toBe(true);
    expect(isAppUrl('app://pipescope/assets/index.js?x=1#frag')).toBe(true);
  });

  it.each([
    'app://pipescope.evil.test/',
    'app://evil/',
    'app://pipescope:1234/',
    'app://u:p@pipescope/',
    'https://pipescope/',
    'file:///index.html',
    'javascript:alert(1)',
    'not a url',
    '',
  ])('rejects %s', (url) => {
    expect(isAppUrl(url)).toBe(false);
  });

  it('rejects non-strings', () => {
    expect(isAppUrl(undefined)).toBe(false);
    expect(isAppUrl({ href: APP_ENTRY_URL })).toBe(false);
  });
});

describe('externalUrl (the only input to shell.openExternal)', () => {
  it('allows parsed https URLs and returns them normalized', () => {
    expect(externalUrl('https://modelcontextprotocol.io/docs')).toBe(
      'https://modelcontextprotocol.io/docs',
    );
    expect(externalUrl('HTTPS://Example.COM')).toBe('https://example.com/');
  });

  it.each([
    'http://example.com/',
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    'file:///etc/passwd',
    'file://server/share/x.exe',
    'smb://server/share',
    'ms-msdt:/id PCWDiagnostic',
    'vscode://file/etc/passwd',
    'x-custom-handler://run?cmd=calc',
    'data:text/html,<script>alert(1)</script>',
    'mailto:a@b.c',
    'app://pipescope/index.html',
    'https://user:pass@example.com/',
    'https://example.com/\n',
    'https://exa\tmple.com/',
    'https//example.com',
    '//example.com/',
    ' https://example.com',
    'https://exa mple.com/',
    '',
  ])('refuses %s', (url) => {
    expect(externalUrl(url)).toBeNull();
  });

  it('refuses non-strings and absurdly long input', () => {
    expect(externalUrl(null)).toBeNull();
    expect(externalUrl(42)).toBeNull();
    expect(externalUrl(`https://example.com/${'a'.repeat(9000)}`)).toBeNull();
  });
});

describe('decideNavigation (will-navigate, will-redirect)', () => {
  it('lets the UI navigate within app://pipescope', () => {
    expect(decideNavigation('app://pipescope/index.html#/sessions')).toEqual({
      allow: true,
      openExternally: null,
    });
  });

  it('denies any other origin; an https target goes to the OS browser instead', () => {
    expect(decideNavigation('https://example.com/')).toEqual({
      allow: false,
      openExternally: 'https://example.com/',
    });
    for (const url of [
      'http://example.com/',
      'file:///etc/passwd',
      'app://other/',
      'javascript:1',
    ]) {
      expect(decideNavigation(url)).toEqual({ allow: false, openExternally: null });
    }
  });
});

describe('decideWindowOpen', () => {
  it('never opens a window, not even for our own origin', () => {
    expect(decideWindowOpen(APP_ENTRY_URL)).toEqual({ allow: false, openExternally: null });
    expect(decideWindowOpen('https://example.com/x')).toEqual({
      allow: false,
      openExternally: 'https://example.com/x',
    });
    expect(decideWindowOpen('file:///tmp/x.html').openExternally).toBeNull();
  });
});

describe('projectPageUrl', () => {
  it('uses an https homepage only', () => {
    expect(projectPageUrl({ homepage: 'https://example.com/pipescope#readme' })).toBe(
      'https://example.com/pipescope#readme',
    );
    expect(projectPageUrl({ homepage: 'http://example.com/' })).toBeNull();
    expect(projectPageUrl({})).toBeNull();
    expect(projectPageUrl(null)).toBeNull();
  });
});
