/**
 * The Electron double's state, shared by the stand-in `electron` module (main-double.mjs, what
 * the shell imports) and the driver (driver.mjs, what the test talks to). Owns: the record of
 * every call the shell made, every member it asked for that the double does not implement, the
 * windows, web contents, IPC handlers, protocol handlers, session handlers, menu and dialogs'
 * canned answers. Fed by: the shell's calls. Read by: the driver, on the test's commands.
 *
 * Plain JavaScript: it runs in a plain Node child process (no TypeScript loader on Node 20).
 */

/** @typedef {{ seq: number, api: string, args: unknown[], ready: boolean }} CallRecord */

export const state = {
  /** Whether `ready` was emitted. */
  ready: false,
  /** Whether app.enableSandbox() ran (before ready, as Electron requires). */
  sandboxEnabled: false,
  /** Every call of the shell on the double, in order. @type {CallRecord[]} */
  calls: [],
  /** Members the shell asked for that the double does not implement ("app.foo"). */
  unknown: /** @type {string[]} */ ([]),
  /** Errors the double raised because the shell broke an Electron rule (e.g. order). */
  misuse: /** @type {string[]} */ ([]),
  /** Uncaught errors and unhandled rejections in the shell's process. */
  errors: /** @type {string[]} */ ([]),
  /** Modules that imported `electron` (file URLs), as the resolver hook saw them. */
  importers: /** @type {string[]} */ ([]),
  /** BrowserWindow records (internal views, not what the shell holds). */
  windows: /** @type {any[]} */ ([]),
  /** Web contents records by id. */
  contents: /** @type {Map<number, any>} */ (new Map()),
  /** ipcMain.handle listeners by channel. */
  ipcHandlers: /** @type {Map<string, Function>} */ (new Map()),
  /** protocol.handle handlers by scheme. */
  protocolHandlers: /** @type {Map<string, Function>} */ (new Map()),
  /** protocol.registerSchemesAsPrivileged's argument. */
  privilegedSchemes: /** @type {unknown[] | null} */ (null),
  /** session.defaultSession handlers. */
  sessionHandlers: {
    permissionRequest: /** @type {Function | null} */ (null),
    permissionCheck: /** @type {Function | null} */ (null),
    devicePermission: /** @type {Function | null} */ (null),
    headersReceived: /** @type {Function | null} */ (null),
  },
  /** Menu.setApplicationMenu's menu template (with its click functions). */
  applicationMenu: /** @type {any[] | null} */ (null),
  /** Canned answers for the next dialogs, by kind ('open', 'save', 'message'). */
  dialogAnswers: { open: [], save: [], message: [] },
  /** Hooks the driver sets. */
  hooks: {
    /** webContents.send(channel, ...args) */
    send: /** @type {(contentsId: number, channel: string, args: unknown[]) => void} */ (() => {}),
    /** The app quit for good (after `quit`): the driver ends the process. */
    exit: /** @type {(code: number) => void} */ (() => {}),
  },
};

let seq = 0;

/** What an argument looks like in the record: data kept, functions and objects named. */
export function summarize(value, depth = 0) {
  if (typeof value === 'function') return '[function]';
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return `[Error ${value.message}]`;
  const tag = value[Symbol.for('electron-double.tag')];
  if (tag) return `[${tag}]`;
  if (depth > 4) return '[…]';
  if (Array.isArray(value)) return value.map((v) => summarize(v, depth + 1));
  const out = {};
  for (const [k, v] of Object.entries(value)) out[k] = summarize(v, depth + 1);
  return out;
}

/** Records one call of the shell. */
export function record(api, args) {
  seq += 1;
  state.calls.push({ seq, api, args: args.map((a) => summarize(a)), ready: state.ready });
}

/** A rule of Electron's the shell broke: recorded (the test fails on it) and thrown, as Electron does. */
export function misuse(message) {
  state.misuse.push(message);
  return new Error(`electron double: ${message}`);
}

/**
 * `target` seen through a proxy that lets the shell use only what it holds: reading anything
 * else records the member as unknown and throws, so a shell that calls an Electron API the
 * double does not implement fails its test even if it swallows the throw.
 */
export function strict(name, target) {
  Object.defineProperty(target, Symbol.for('electron-double.tag'), { value: name });
  return new Proxy(target, {
    get(t, prop, receiver) {
      if (typeof prop === 'symbol' || prop in t) return Reflect.get(t, prop, receiver);
      // Promise resolution and inspection probe `then`; an object without it is no thenable.
      if (prop === 'then' || prop === 'toJSON') return undefined;
      state.unknown.push(`${name}.${prop}`);
      throw new Error(`electron double: ${name}.${prop} is not implemented`);
    },
    set(t, prop, value) {
      if (typeof prop !== 'symbol' && !(prop in t)) {
        state.unknown.push(`${name}.${String(prop)} (set)`);
        throw new Error(`electron double: ${name}.${String(prop)} cannot be set`);
      }
      return Reflect.set(t, prop, value);
    },
  });
}

/**
 * on/once for an Electron emitter that knows its events: listening to an event the real object
 * never emits (a typo) is an error here, since the listener would never run.
 */
export function emitter(name, events) {
  const listeners = new Map();
  const add = (event, fn, once) => {
    if (!events.includes(event)) {
      state.unknown.push(`${name} event '${event}'`);
      throw new Error(`electron double: ${name} never emits '${event}'`);
    }
    if (typeof fn !== 'function') throw misuse(`${name}.on('${event}') needs a function`);
    if (!listeners.has(event)) listeners.set(event, []);
    listeners.get(event).push({ fn, once });
  };
  return {
    on(event, fn) {
      record(`${name}.on`, [event]);
      add(event, fn, false);
    },
    once(event, fn) {
      record(`${name}.once`, [event]);
      add(event, fn, true);
    },
    /** Internal: runs the listeners in order; returns how many ran. */
    emit(event, ...args) {
      const list = listeners.get(event) ?? [];
      listeners.set(
        event,
        list.filter((l) => !l.once),
      );
      for (const l of list) l.fn(...args);
      return list.length;
    },
    count(event) {
      return (listeners.get(event) ?? []).length;
    },
  };
}

/** An Electron `Event`: preventDefault and defaultPrevented, plus the fields given. */
export function electronEvent(name, fields = {}) {
  const event = {
    ...fields,
    defaultPrevented: false,
    preventDefault() {
      event.defaultPrevented = true;
    },
  };
  return strict(name, event);
}
