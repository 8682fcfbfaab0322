/**
 * The one BrowserWindow's options, with the renderer locked down as HARDENING.md 27 asks:
 * context isolation, sandbox, no Node in the page or its workers/frames, web security on, no
 * `<webview>`, no experimental or extra Blink features, no insecure content. Pure data (types only
 * from 'electron'), tested by window-options.test.ts; main.ts passes it to `new BrowserWindow`.
 */
import type { BrowserWindowConstructorOptions } from 'electron';

export interface WindowOptionsInput {
  /** Absolute path of the bundled preload (dist/preload/preload.cjs). */
  preloadPath: string;
  /** DevTools exist only in unpackaged (development) runs. */
  isPackaged: boolean;
  /** Window icon (Linux/Windows); macOS takes the bundle icon. */
  iconPath?: string;
  /** Background before first paint, so a dark OS theme does not flash white. */
  darkBackground?: boolean;
}

export function buildWindowOptions(input: WindowOptionsInput): BrowserWindowConstructorOptions {
  return {
    width: 1360,
    height: 860,
    minWidth: 960,
    minHeight: 600,
    title: 'Pipescope',
    show: false,
    backgroundColor: input.darkBackground ? '#15181d' : '#f6f7f9',
    ...(input.iconPath ? { icon: input.iconPath } : {}),
    webPreferences: {
      preload: input.preloadPath,
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
      devTools: !input.isPackaged,
    },
  };
}
