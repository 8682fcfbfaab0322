import { describe, expect, it } from 'vitest';
import { buildWindowOptions } from './window-options.js';

describe('buildWindowOptions', () => {
  const packaged = buildWindowOptions({
    preloadPath: '/app/dist/preload/preload.cjs',
    isPackaged: true,
  });

  it('locks the renderer down exactly as HARDENING.md 27 says', () => {
    expect(packaged.webPreferences).toEqual({
      preload: '/app/dist/preload/preload.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
      devTools: false,
    });
  });

  it('never enables extra Blink features or a partition that could skip the session hardening', () => {
    const prefs = packaged.webPreferences ?? {};
    expect(prefs).not.toHaveProperty('enableBlinkFeatures');
    expect(prefs).not.toHaveProperty('partition');
    expect(prefs).not.toHaveProperty('session');
    expect(prefs).not.toHaveProperty('additionalArguments');
  });

  it('has DevTools only when unpackaged, and otherwise the same flags', () => {
    const dev = buildWindowOptions({ preloadPath: '/p.cjs', isPackaged: false });
    expect(dev.webPreferences?.devTools).toBe(true);
    expect({ ...dev.webPreferences, devTools: false, preload: '' }).toEqual({
      ...packaged.webPreferences,
      preload: '',
    });
  });

  it('waits for ready-to-show and picks a background for the OS theme', () => {
    expect(packaged.show).toBe(false);
    const dark = buildWindowOptions({ preloadPath: '/p', isPackaged: true, darkBackground: true });
    expect(dark.backgroundColor).not.toBe(packaged.backgroundColor);
    expect(packaged).not.toHaveProperty('icon');
    expect(
      buildWindowOptions({ preloadPath: '/p', isPackaged: true, iconPath: '/i.png' }).icon,
    ).toBe('/i.png');
  });
});
