/**
 * Electron main process: the thin wiring between Electron and the plain modules beside it
 * (window-options, app-protocol, navigation, ipc-registry, menu-template, quit-guard), which hold
 * the logic and are tested in plain Node. Owns: the one window, the SessionManager, the menu and
 * the quit sequence. Only this file and electron/preload import 'electron' at run time.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  app,
  BrowserWindow,
  dialog,
  type Event,
  ipcMain,
  Menu,
  nativeTheme,
  protocol,
  session,
  shell,
  type WebContents,
} from 'electron';
import { SessionManager } from '../engine/host/session-manager.js';
import { builtPaths } from '../paths.js';
import {
  APP_SCHEME_PRIVILEGES,
  CONTENT_SECURITY_POLICY,
  createAppProtocolHandler,
} from './app-protocol.js';
import { forwardHostEvents, registerInvokeHandler, sendMenuEvent } from './ipc-registry.js';
import {
  defaultTraceFileName,
  openTraceEvent,
  readConfigFile,
  saveTraceEvent,
  TRACE_FILTERS,
} from './menu-events.js';
import { buildMenuTemplate } from './menu-template.js';
import {
  APP_ENTRY_URL,
  APP_SCHEME,
  decideNavigation,
  decideWindowOpen,
  externalUrl,
  isAppUrl,
  projectPageUrl,
} from './navigation.js';
import { isPermissionAllowed } from './permissions.js';
import { createQuitGuard } from './quit-guard.js';
import { buildWindowOptions } from './window-options.js';

const RENDERER_DIR = builtPaths.renderer();
const PRELOAD = builtPaths.preload();
const ICON = builtPaths.icon();

// Must happen before `ready` (privileges and their reasons: app-protocol.ts).
protocol.registerSchemesAsPrivileged([
  { scheme: APP_SCHEME, privileges: { ...APP_SCHEME_PRIVILEGES } },
]);
app.enableSandbox();

function openExternal(raw: string): void {
  const url = externalUrl(raw);
  if (url) void shell.openExternal(url);
}

/** HARDENING.md 27-29 for every web contents, including any we did not create ourselves. */
function hardenContents(contents: WebContents): void {
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    const decision = decideWindowOpen(url);
    if (decision.openExternally) openExternal(decision.openExternally);
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event) => {
    const decision = decideNavigation(event.url);
    if (decision.allow) return;
    event.preventDefault();
    if (decision.openExternally) openExternal(decision.openExternally);
  });
  contents.on('will-redirect', (event) => {
    if (!isAppUrl(event.url)) event.preventDefault();
  });
  contents.on('will-frame-navigate', (event) => {
    if (!isAppUrl(event.url)) event.preventDefault();
  });
}

function hardenSession(): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((contents, permission, callback) =>
    callback(isPermissionAllowed(permission, contents.getURL(), isAppUrl)),
  );
  ses.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    isPermissionAllowed(permission, `${requestingOrigin}/`, isAppUrl),
  );
  ses.setDevicePermissionHandler(() => false);
  // The app:// handler already sends the CSP; this covers any other response in the session.
  ses.webRequest.onHeadersReceived((details, callback) => {
    if (details.url.startsWith('devtools://')) return callback({});
    const headers: Record<string, string[]> = {};
    for (const [name, value] of Object.entries(details.responseHeaders ?? {})) {
      if (name.toLowerCase() !== 'content-security-policy') headers[name] = value;
    }
    headers['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
    callback({ responseHeaders: headers });
  });
  protocol.handle(APP_SCHEME, createAppProtocolHandler(RENDERER_DIR));
}

function readPackageJson(): { homepage?: unknown } | null {
  try {
    return JSON.parse(readFileSync(path.join(app.getAppPath(), 'package.json'), 'utf8'));
  } catch {
    return null;
  }
}

function startApp(): void {
  const manager = new SessionManager();
  void manager.startTaps().then((why) => {
    if (why) process.stderr.write(`pipescope: taps: ${why}\n`);
  });
  let win: BrowserWindow | null = null;

  const currentContents = (): WebContents | null =>
    win && !win.isDestroyed() ? win.webContents : null;

  const focusWindow = (): void => {
    if (!win || win.isDestroyed()) return;
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  };

  const importConfig = async (): Promise<void> => {
    const options = {
      title: 'Import MCP server config',
      properties: ['openFile' as const, 'showHiddenFiles' as const],
      filters: [
        { name: 'MCP config (JSON)', extensions: ['json'] },
        { name: 'All files', extensions: ['*'] },
      ],
    };
    const chosen = win
      ? await dialog.showOpenDialog(win, options)
      : await dialog.showOpenDialog(options);
    if (chosen.canceled || chosen.filePaths.length === 0) return;
    const read = await readConfigFile(chosen.filePaths[0]);
    if (!read.ok) {
      dialog.showErrorBox('Import config', read.error.message);
      return;
    }
    focusWindow();
    sendMenuEvent(currentContents(), { type: 'menu', action: 'import-config', ...read.value });
  };

  // The renderer knows which session is active: it opens the trace or records that session.
  const openTrace = async (): Promise<void> => {
    const options = {
      title: 'Open trace',
      properties: ['openFile' as const, 'showHiddenFiles' as const],
      filters: TRACE_FILTERS,
    };
    const chosen = win
      ? await dialog.showOpenDialog(win, options)
      : await dialog.showOpenDialog(options);
    const event = openTraceEvent(chosen);
    if (!event) return;
    focusWindow();
    sendMenuEvent(currentContents(), event);
  };

  const saveTrace = async (): Promise<void> => {
    const options = {
      title: 'Record the active session to a trace',
      defaultPath: path.join(app.getPath('documents'), defaultTraceFileName()),
      filters: TRACE_FILTERS,
    };
    const chosen = win
      ? await dialog.showSaveDialog(win, options)
      : await dialog.showSaveDialog(options);
    const event = saveTraceEvent(chosen);
    if (!event) return;
    focusWindow();
    sendMenuEvent(currentContents(), event);
  };

  const showAbout = (): void => {
    const v = process.versions;
    const options = {
      type: 'info' as const,
      title: `About ${app.getName()}`,
      message: `Pipescope ${app.getVersion()}`,
      detail: `Desktop inspector for MCP servers over stdio.\n\nElectron ${v.electron} · Chromium ${v.chrome} · Node ${v.node}`,
      buttons: ['OK'],
    };
    void (win ? dialog.showMessageBox(win, options) : dialog.showMessageBox(options));
  };

  const projectPage = projectPageUrl(readPackageJson());
  const menu = buildMenuTemplate({
    appName: 'Pipescope',
    platform: process.platform,
    isPackaged: app.isPackaged,
    actions: {
      newSession: () => {
        focusWindow();
        sendMenuEvent(currentContents(), { type: 'menu', action: 'new-session' });
      },
      importConfig: () => void importConfig(),
      openTrace: () => void openTrace(),
      saveTrace: () => void saveTrace(),
      showAbout,
      openProjectPage: projectPage ? () => openExternal(projectPage) : null,
    },
  });

  const createWindow = (): void => {
    const w = new BrowserWindow(
      buildWindowOptions({
        preloadPath: PRELOAD,
        isPackaged: app.isPackaged,
        iconPath: existsSync(ICON) ? ICON : undefined,
        darkBackground: nativeTheme.shouldUseDarkColors,
      }),
    );
    win = w;
    let unsubscribe: (() => void) | null = null;
    // (Re)subscribe once the page is up, so the initial session list reaches its listener.
    w.webContents.on('did-finish-load', () => {
      unsubscribe?.();
      unsubscribe = forwardHostEvents(manager, w.webContents);
    });
    w.once('ready-to-show', () => w.show());
    w.on('closed', () => {
      unsubscribe?.();
      unsubscribe = null;
      if (win === w) win = null;
    });
    void w.loadURL(APP_ENTRY_URL);
  };

  const guard = createQuitGuard({
    stopAll: () => manager.stopAll(),
    quit: () => app.quit(),
    onError: (e) => process.stderr.write(`pipescope: stopping sessions failed: ${String(e)}\n`),
  });
  app.on('before-quit', (event: Event) => guard.onBeforeQuit(event));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());

  app.on('second-instance', focusWindow);
  app.on('web-contents-created', (_event, contents) => hardenContents(contents));
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  void app.whenReady().then(() => {
    hardenSession();
    Menu.setApplicationMenu(Menu.buildFromTemplate(menu));
    registerInvokeHandler(ipcMain, manager, () => currentContents()?.id ?? null);
    createWindow();
    app.on('activate', () => {
      if (!win) createWindow();
    });
  });
}

if (app.requestSingleInstanceLock()) startApp();
else app.quit();
