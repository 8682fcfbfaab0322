/**
 * BrowserWindow and WebContents of the Electron double. A window records its options, owns one
 * web contents, and loads a URL the way Electron does for the shell's `app://` page: through the
 * protocol handler the shell registered (no handler, or not a 200: the load fails). The driver
 * plays the user and the page: minimize, close, navigate, window.open.
 */
import { electronEvent, emitter, misuse, record, state, strict } from './state.mjs';

const WINDOW_EVENTS = ['ready-to-show', 'close', 'closed', 'show', 'focus', 'blur', 'minimize'];
const CONTENTS_EVENTS = [
  'did-finish-load',
  'did-fail-load',
  'dom-ready',
  'will-navigate',
  'will-redirect',
  'will-frame-navigate',
  'will-attach-webview',
  'did-create-window',
  'render-process-gone',
  'destroyed',
];

let nextContentsId = 1;

/** Electron's app emitter, set by main-double.mjs (web-contents-created). */
let appEvents = null;
export function connectApp(events) {
  appEvents = events;
}

/** A WebContents: the record the driver reads and the strict view the shell holds. */
export function createContents(kind) {
  const id = nextContentsId++;
  const events = emitter(`webContents#${id}`, CONTENTS_EVENTS);
  const rec = {
    id,
    kind,
    url: '',
    destroyed: false,
    events,
    windowOpenHandler: null,
    sent: 0,
    view: null,
  };
  rec.view = strict(`webContents#${id}`, {
    id,
    on: (event, fn) => events.on(event, fn),
    once: (event, fn) => events.once(event, fn),
    send(channel, ...args) {
      if (rec.destroyed) throw misuse(`webContents#${id}.send after it was destroyed`);
      if (typeof channel !== 'string') throw misuse('webContents.send needs a channel name');
      // Electron serializes with the structured clone algorithm, and throws on what it cannot.
      const cloned = structuredClone(args);
      rec.sent += 1;
      state.hooks.send(id, channel, cloned);
    },
    isDestroyed: () => rec.destroyed,
    getURL: () => rec.url,
    setWindowOpenHandler(handler) {
      record(`webContents#${id}.setWindowOpenHandler`, [handler]);
      if (typeof handler !== 'function') throw misuse('setWindowOpenHandler needs a function');
      rec.windowOpenHandler = handler;
    },
  });
  state.contents.set(id, rec);
  // Electron emits it for every web contents, the app's own windows included, as it is made.
  appEvents?.emit('web-contents-created', electronEvent('Event'), rec.view);
  return rec;
}

async function load(win, url) {
  const contents = win.contents;
  const fail = (why) => {
    contents.events.emit('did-fail-load', electronEvent('Event'), -6, why, url, true);
    return Promise.reject(new Error(`ERR_FILE_NOT_FOUND (-6) loading '${url}': ${why}`));
  };
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return fail('not a URL');
  }
  const scheme = parsed.protocol.slice(0, -1);
  const handler = state.protocolHandlers.get(scheme);
  if (!handler) return fail(`no protocol handler for ${scheme}:`);
  const response = await handler(new Request(url, { method: 'GET' }));
  if (!(response instanceof Response) || response.status !== 200) {
    return fail(`the handler answered ${response?.status}`);
  }
  if (!/^text\/html/.test(response.headers.get('content-type') ?? '')) {
    return fail(`the page is ${response.headers.get('content-type')}, not HTML`);
  }
  contents.url = url;
  contents.loadedHtml = await response.text();
  contents.events.emit('did-finish-load', electronEvent('Event'));
  if (!win.shownOnce) win.events.emit('ready-to-show', electronEvent('Event'));
}

class BrowserWindowDouble {
  constructor(options) {
    record('new BrowserWindow', [options]);
    if (!state.ready) throw misuse('a BrowserWindow was created before the app was ready');
    const id = state.windows.length + 1;
    const events = emitter(`BrowserWindow#${id}`, WINDOW_EVENTS);
    const contents = createContents('window');
    const rec = {
      id,
      options: structuredClone(options),
      events,
      contents,
      destroyed: false,
      minimized: false,
      visible: false,
      focused: false,
      shownOnce: false,
      view: null,
    };
    const api =
      (name, fn) =>
      (...args) => {
        record(`BrowserWindow#${id}.${name}`, args);
        if (rec.destroyed) throw misuse(`BrowserWindow#${id}.${name} after it was destroyed`);
        return fn(...args);
      };
    rec.view = strict(`BrowserWindow#${id}`, {
      webContents: contents.view,
      on: (event, fn) => events.on(event, fn),
      once: (event, fn) => events.once(event, fn),
      isDestroyed: () => rec.destroyed,
      isMinimized: api('isMinimized', () => rec.minimized),
      restore: api('restore', () => {
        rec.minimized = false;
      }),
      show: api('show', () => {
        rec.visible = true;
        rec.shownOnce = true;
      }),
      focus: api('focus', () => {
        rec.focused = true;
      }),
      loadURL: api('loadURL', (url) => load(rec, url)),
    });
    state.windows.push(rec);
    // biome-ignore lint/correctness/noConstructorReturn: `new` must hand the shell the strict view
    return rec.view;
  }
}

/** The BrowserWindow class as the shell sees it: `new` works, statics are strict. */
export const BrowserWindow = new Proxy(BrowserWindowDouble, {
  get(target, prop, receiver) {
    if (typeof prop === 'symbol' || prop === 'prototype' || prop === 'name' || prop === 'length')
      return Reflect.get(target, prop, receiver);
    state.unknown.push(`BrowserWindow.${prop}`);
    throw new Error(`electron double: BrowserWindow.${prop} is not implemented`);
  },
});

/** Driver: the user closes a window (close, closed, and window-all-closed if it was the last). */
export function closeWindow(rec, { quitting = false } = {}) {
  if (rec.destroyed) return;
  const event = electronEvent('Event');
  rec.events.emit('close', event);
  if (event.defaultPrevented) return;
  rec.destroyed = true;
  rec.contents.destroyed = true;
  rec.contents.events.emit('destroyed', electronEvent('Event'));
  rec.events.emit('closed');
  const open = state.windows.filter((w) => !w.destroyed);
  // Electron does not emit window-all-closed when the windows close because the app quits.
  if (open.length === 0 && !quitting) appEvents?.emit('window-all-closed');
}
