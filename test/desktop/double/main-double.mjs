/**
 * The stand-in for the `electron` module in the main process: what the resolver hook
 * (hooks.mjs) hands electron/main/main.js for its imports of the `electron` module. It implements only the
 * members the shell uses, with the rules of Electron's that matter to it (privileged schemes and
 * the sandbox before `ready`, the session and protocol.handle after it, one handler per IPC
 * channel, structured-clone IPC, quit's event sequence, the single-instance lock); anything else
 * the shell asks for is recorded as unknown and throws (state.mjs `strict`).
 *
 * The single-instance lock is real across processes: a lock file and a Unix socket in the
 * double's user-data folder (DOUBLE_USER_DATA), so a second shell process is refused and the
 * first one gets `second-instance` with the second's argv, as with Electron's ProcessSingleton.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import path from 'node:path';
import { electronEvent, emitter, misuse, record, state, strict } from './state.mjs';
import { BrowserWindow, closeWindow, connectApp } from './windows.mjs';

export { BrowserWindow };

const env = process.env;
const USER_DATA = env.DOUBLE_USER_DATA ?? '';
const APP_PATH = env.DOUBLE_APP_PATH ?? process.cwd();
const PATHS = {
  home: env.HOME ?? '/',
  userData: USER_DATA,
  documents: env.DOUBLE_DOCUMENTS ?? USER_DATA,
  temp: env.TMPDIR ?? '/tmp',
};

function call(name, fn) {
  return (...args) => {
    record(name, args);
    return fn(...args);
  };
}

// ---- app ----

const APP_EVENTS = [
  'ready',
  'before-quit',
  'will-quit',
  'quit',
  'window-all-closed',
  'activate',
  'second-instance',
  'web-contents-created',
  'browser-window-created',
  'open-file',
  'open-url',
];
const appEvents = emitter('app', APP_EVENTS);
connectApp(appEvents);

let resolveReady;
const readyPromise = new Promise((resolve) => {
  resolveReady = resolve;
});
let quitting = false;
const pendingNotifications = [];

function appPackage() {
  try {
    return JSON.parse(readFileSync(path.join(APP_PATH, 'package.json'), 'utf8'));
  } catch {
    return {};
  }
}

/** Electron's quit sequence: before-quit (may be prevented), close the windows, will-quit, quit. */
function quit() {
  setImmediate(() => {
    const before = electronEvent('Event');
    appEvents.emit('before-quit', before);
    if (before.defaultPrevented) return;
    quitting = true;
    for (const w of state.windows) closeWindow(w, { quitting: true });
    const will = electronEvent('Event');
    appEvents.emit('will-quit', will);
    if (will.defaultPrevented) {
      quitting = false;
      return;
    }
    appEvents.emit('quit', electronEvent('Event'), 0);
    void Promise.allSettled(pendingNotifications).then(() => {
      releaseLock();
      state.hooks.exit(0);
    });
  });
}

// The single-instance lock (see the header).
const lockFile = path.join(USER_DATA, 'SingletonLock');
const socketFile = path.join(USER_DATA, 'SingletonSocket');
let lockServer = null;
let lockHeld = false;

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function takeLock() {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      const owner = Number(readFileSync(lockFile, 'utf8'));
      if (owner > 0 && owner !== process.pid && alive(owner)) return false;
      rmSync(lockFile, { force: true }); // a stale lock of a dead process
    }
  }
  return false;
}

function listenForSecondInstances() {
  rmSync(socketFile, { force: true });
  lockServer = createServer((socket) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => {
      text += d;
    });
    socket.on('end', () => {
      socket.end();
      const { argv, cwd } = JSON.parse(text);
      appEvents.emit('second-instance', electronEvent('Event'), argv, cwd, {});
    });
  });
  lockServer.listen(socketFile);
  lockServer.unref();
}

function notifyFirstInstance() {
  const message = JSON.stringify({ argv: process.argv, cwd: process.cwd() });
  const attempt = (left) =>
    new Promise((resolve, reject) => {
      const socket = connect(socketFile);
      socket.on('connect', () => socket.end(message));
      socket.on('close', () => resolve());
      socket.on('error', (e) => {
        if (left <= 0) reject(e);
        else setTimeout(() => attempt(left - 1).then(resolve, reject), 50);
      });
    });
  pendingNotifications.push(attempt(40));
}

function releaseLock() {
  if (!lockHeld) return;
  lockServer?.close();
  rmSync(lockFile, { force: true });
  rmSync(socketFile, { force: true });
  lockHeld = false;
}

export const app = strict('app', {
  on: (event, fn) => appEvents.on(event, fn),
  once: (event, fn) => appEvents.once(event, fn),
  get isPackaged() {
    return env.DOUBLE_PACKAGED === '1';
  },
  enableSandbox: call('app.enableSandbox', () => {
    if (state.ready) throw misuse('app.enableSandbox() can only be called before app is ready');
    state.sandboxEnabled = true;
  }),
  whenReady: call('app.whenReady', () => readyPromise),
  requestSingleInstanceLock: call('app.requestSingleInstanceLock', () => {
    if (!USER_DATA) throw misuse('DOUBLE_USER_DATA is not set (the lock lives there)');
    lockHeld = takeLock();
    if (lockHeld) listenForSecondInstances();
    else notifyFirstInstance();
    return lockHeld;
  }),
  quit: call('app.quit', quit),
  getAppPath: call('app.getAppPath', () => APP_PATH),
  getPath: call('app.getPath', (name) => {
    if (!Object.hasOwn(PATHS, name)) throw misuse(`app.getPath('${name}') is not implemented`);
    return PATHS[name];
  }),
  getName: call('app.getName', () => appPackage().productName ?? appPackage().name ?? 'Electron'),
  getVersion: call('app.getVersion', () => appPackage().version ?? '0.0.0'),
});

/** Driver: Electron's `ready`. */
export function emitReady() {
  if (state.ready) return;
  state.ready = true;
  appEvents.emit('ready', electronEvent('Event'), {});
  resolveReady();
}

/** Driver: an app event only Electron raises (activate, the dock click on macOS). */
export function emitAppEvent(name, ...args) {
  return appEvents.emit(name, electronEvent('Event'), ...args);
}

export const isQuitting = () => quitting;

// ---- protocol, session ----

export const protocol = strict('protocol', {
  registerSchemesAsPrivileged: call('protocol.registerSchemesAsPrivileged', (schemes) => {
    if (state.ready) throw misuse('registerSchemesAsPrivileged must be called before ready');
    if (state.privilegedSchemes) throw misuse('registerSchemesAsPrivileged may be called once');
    state.privilegedSchemes = structuredClone(schemes);
  }),
  handle: call('protocol.handle', (scheme, handler) => {
    if (!state.ready) throw misuse('protocol.handle must be called after ready');
    if (state.protocolHandlers.has(scheme)) throw misuse(`${scheme}: is handled already`);
    state.protocolHandlers.set(scheme, handler);
  }),
});

function setter(name, key) {
  return call(`session.defaultSession.${name}`, (handler) => {
    state.sessionHandlers[key] = handler;
  });
}

const defaultSession = strict('session.defaultSession', {
  setPermissionRequestHandler: setter('setPermissionRequestHandler', 'permissionRequest'),
  setPermissionCheckHandler: setter('setPermissionCheckHandler', 'permissionCheck'),
  setDevicePermissionHandler: setter('setDevicePermissionHandler', 'devicePermission'),
  webRequest: strict('session.defaultSession.webRequest', {
    onHeadersReceived: call('session.defaultSession.webRequest.onHeadersReceived', (fn) => {
      state.sessionHandlers.headersReceived = fn;
    }),
  }),
});

export const session = strict('session', {
  get defaultSession() {
    if (!state.ready) throw misuse('session.defaultSession can only be used once the app is ready');
    return defaultSession;
  },
});

// ---- ipcMain ----

export const ipcMain = strict('ipcMain', {
  handle: call('ipcMain.handle', (channel, listener) => {
    if (state.ipcHandlers.has(channel))
      throw misuse(`Attempted to register a second handler for '${channel}'`);
    state.ipcHandlers.set(channel, listener);
  }),
  removeHandler: call('ipcMain.removeHandler', (channel) => {
    state.ipcHandlers.delete(channel);
  }),
});

// ---- Menu, dialog, shell, nativeTheme ----

// Electron's menu roles (MenuItemConstructorOptions.role): a misspelt one would be an error.
const ROLES = new Set(
  'undo redo cut copy paste pasteAndMatchStyle delete selectAll reload forceReload toggleDevTools resetZoom zoomIn zoomOut toggleSpellChecker togglefullscreen window minimize close help about services hide hideOthers unhide quit showSubstitutions toggleSmartQuotes toggleSmartDashes toggleTextReplacement startSpeaking stopSpeaking zoom front appMenu fileMenu editMenu viewMenu shareMenu recentDocuments toggleTabBar selectNextTab selectPreviousTab showAllTabs mergeAllWindows clearRecentDocuments moveTabToNewWindow windowMenu'.split(
    ' ',
  ),
);

function checkItems(items, where) {
  if (!Array.isArray(items)) throw misuse(`${where}: a menu template is an array`);
  for (const item of items) {
    if (item.role !== undefined && !ROLES.has(item.role))
      throw misuse(`${where}: unknown menu role '${item.role}'`);
    if (item.type === 'separator') continue;
    if (item.role === undefined && item.label === undefined)
      throw misuse(`${where}: an item without role needs a label`);
    if (item.click !== undefined && typeof item.click !== 'function')
      throw misuse(`${where}: click must be a function`);
    if (item.submenu) checkItems(item.submenu, `${where} > ${item.label ?? item.role}`);
  }
}

export const Menu = strict('Menu', {
  buildFromTemplate: call('Menu.buildFromTemplate', (template) => {
    checkItems(template, 'menu');
    return strict('Menu#built', { template });
  }),
  setApplicationMenu: call('Menu.setApplicationMenu', (menu) => {
    state.applicationMenu = menu === null ? null : menu.template;
  }),
});

function answer(kind, fallback) {
  return state.dialogAnswers[kind].shift() ?? fallback;
}

export const dialog = strict('dialog', {
  showOpenDialog: call('dialog.showOpenDialog', async () =>
    answer('open', { canceled: true, filePaths: [] }),
  ),
  showSaveDialog: call('dialog.showSaveDialog', async () => answer('save', { canceled: true })),
  showMessageBox: call('dialog.showMessageBox', async () =>
    answer('message', { response: 0, checkboxChecked: false }),
  ),
  showErrorBox: call('dialog.showErrorBox', () => {}),
});

export const shell = strict('shell', {
  openExternal: call('shell.openExternal', async (url) => {
    if (typeof url !== 'string') throw misuse('shell.openExternal needs a string');
  }),
});

export const nativeTheme = strict('nativeTheme', {
  get shouldUseDarkColors() {
    return env.DOUBLE_DARK === '1';
  },
});
