/**
 * The shell's test process: `node --import ./register.mjs driver.mjs <main.js>`, forked by
 * test/desktop/shell-process.ts with an IPC channel (advanced serialization: structured clone,
 * as Electron's IPC). It imports the real built main.js (which gets the double for `electron`),
 * emits `ready`, and then plays Electron and the user on the test's commands: IPC invokes from a
 * given frame, app:// requests, menu clicks, dialog answers, navigation, permission requests,
 * closing the window, quitting. Everything the shell sends to a web contents is forwarded to
 * the test as an event. Owns: this process; it exits when the shell's app quits for good.
 */
import { pathToFileURL } from 'node:url';
import { emitAppEvent, emitReady } from './main-double.mjs';
import { electronEvent, state, strict } from './state.mjs';
import { closeWindow, createContents } from './windows.mjs';

const mainFile = process.argv[2];
const send = (message, done) => {
  if (process.connected) process.send?.(message, done);
  else done?.();
};

process.on('uncaughtException', (e) => {
  state.errors.push(`uncaught: ${e?.stack ?? e}`);
  send({ event: 'error', text: String(e?.stack ?? e) });
});
// Electron's main process logs an unhandled rejection and goes on: so does the double, but the
// test hears of it and fails.
process.on('unhandledRejection', (e) => {
  state.errors.push(`unhandled rejection: ${e?.stack ?? e}`);
  send({ event: 'error', text: String(e?.stack ?? e) });
});

state.hooks.send = (contents, channel, args) => send({ event: 'send', contents, channel, args });
state.hooks.exit = (code) => {
  // The last state goes with the news: the process is gone once the test hears it.
  send({ event: 'exit', code, state: summary() }, () => process.exit(code));
};

function contentsOf(id) {
  const rec = id === undefined ? state.windows[0]?.contents : state.contents.get(id);
  if (!rec) throw new Error(`no web contents ${id ?? '(window)'}`);
  return rec;
}

function frameView(frame, contents) {
  if (frame === null) return null;
  if (frame === undefined || frame === 'main')
    return strict('WebFrameMain', { url: contents.url, parent: null });
  return strict('WebFrameMain', {
    url: frame.url,
    parent: frame.parent ? strict('WebFrameMain', { url: frame.parent, parent: null }) : null,
  });
}

async function invoke({ channel, args, contents: contentsId, frame }) {
  const contents = contentsOf(contentsId);
  const handler = state.ipcHandlers.get(channel);
  // Electron's own refusal, as the renderer's invoke() rejects with it.
  if (!handler)
    throw new Error(
      `Error invoking remote method '${channel}': Error: No handler registered for '${channel}'`,
    );
  const event = strict('IpcMainInvokeEvent', {
    sender: contents.view,
    senderFrame: frameView(frame, contents),
    frameId: 1,
    processId: 1,
  });
  return structuredClone(await handler(event, ...structuredClone(args)));
}

async function fetchApp({ url, method = 'GET', raw = false }) {
  const handler = state.protocolHandlers.get(new URL(url).protocol.slice(0, -1));
  if (!handler) return { status: 0, headers: {}, body: null };
  // Chromium hands a handler a Request (its URL normalized); `raw` passes the string as is.
  const request = raw ? { url, method } : new Request(url, { method });
  const response = await handler(request);
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : null;
  return { status: response.status, headers: Object.fromEntries(response.headers), body };
}

function findItem(items, match) {
  for (const item of items ?? []) {
    if ((match.id && item.id === match.id) || (match.role && item.role === match.role)) return item;
    const inner = findItem(item.submenu, match);
    if (inner) return inner;
  }
  return null;
}

function menuSummary(items) {
  return (items ?? []).map((i) => ({
    id: i.id,
    label: i.label,
    role: i.role,
    type: i.type,
    accelerator: i.accelerator,
    enabled: i.enabled,
    click: typeof i.click === 'function',
    submenu: i.submenu ? menuSummary(i.submenu) : undefined,
  }));
}

function clickMenu({ id, role }) {
  const item = findItem(state.applicationMenu, { id, role });
  if (!item) throw new Error(`no menu item ${id ?? role}`);
  if (item.enabled === false) throw new Error(`menu item ${id ?? role} is disabled`);
  if (item.role === 'quit') return emitQuitRole();
  if (typeof item.click !== 'function') throw new Error(`menu item ${id ?? role} has no click`);
  const win = state.windows.find((w) => !w.destroyed);
  item.click(
    strict('MenuItem', { id: item.id, label: item.label }),
    win?.view,
    strict('KeyboardEvent', {}),
  );
  return true;
}

async function emitQuitRole() {
  const { app } = await import('./main-double.mjs');
  app.quit();
  return true;
}

function summary() {
  return {
    ready: state.ready,
    sandboxEnabled: state.sandboxEnabled,
    calls: state.calls,
    unknown: state.unknown,
    misuse: state.misuse,
    errors: state.errors,
    importers: state.importers,
    windows: state.windows.map((w) => ({
      id: w.id,
      options: w.options,
      contents: w.contents.id,
      destroyed: w.destroyed,
      minimized: w.minimized,
      visible: w.visible,
      focused: w.focused,
    })),
    contents: [...state.contents.values()].map((c) => ({
      id: c.id,
      kind: c.kind,
      url: c.url,
      destroyed: c.destroyed,
      windowOpenHandler: c.windowOpenHandler !== null,
    })),
    ipcChannels: [...state.ipcHandlers.keys()],
    protocolSchemes: [...state.protocolHandlers.keys()],
    privilegedSchemes: state.privilegedSchemes,
    sessionHandlers: Object.fromEntries(
      Object.entries(state.sessionHandlers).map(([k, v]) => [k, v !== null]),
    ),
    menu: state.applicationMenu ? menuSummary(state.applicationMenu) : null,
  };
}

const COMMANDS = {
  state: () => summary(),
  invoke,
  fetch: fetchApp,
  'menu-click': clickMenu,
  'dialog-answer': ({ kind, answer }) => {
    state.dialogAnswers[kind].push(answer);
    return true;
  },
  navigate: ({ contents, event: name, url, isMainFrame = true }) => {
    const rec = contentsOf(contents);
    const event = electronEvent('Event', { url, isMainFrame, isSameDocument: false });
    if (name === 'will-attach-webview') rec.events.emit(name, event, {}, { src: url });
    else rec.events.emit(name, event, url, false, isMainFrame);
    return { prevented: event.defaultPrevented };
  },
  'window-open': ({ contents, url }) => {
    const rec = contentsOf(contents);
    if (!rec.windowOpenHandler) return { action: 'allow', why: 'no window open handler' };
    const details = {
      url,
      frameName: '',
      features: '',
      disposition: 'new-window',
      referrer: { url: '', policy: 'default' },
    };
    return rec.windowOpenHandler(strict('HandlerDetails', details));
  },
  'permission-request': ({ contents, permission }) =>
    new Promise((resolve) => {
      const rec = contentsOf(contents);
      const handler = state.sessionHandlers.permissionRequest;
      if (!handler) return resolve('no handler');
      handler(
        rec.view,
        permission,
        (granted) => resolve(granted),
        strict('PermissionRequest', { requestingUrl: rec.url }),
      );
    }),
  'permission-check': ({ contents, permission, origin }) => {
    const handler = state.sessionHandlers.permissionCheck;
    if (!handler) return 'no handler';
    const view = contents === null ? null : contentsOf(contents).view;
    return handler(
      view,
      permission,
      origin,
      strict('PermissionCheck', { requestingUrl: `${origin}/` }),
    );
  },
  'device-permission': ({ origin }) => {
    const handler = state.sessionHandlers.devicePermission;
    if (!handler) return 'no handler';
    return handler(strict('DevicePermission', { deviceType: 'usb', origin, device: {} }));
  },
  headers: ({ url, responseHeaders }) =>
    new Promise((resolve) => {
      const handler = state.sessionHandlers.headersReceived;
      if (!handler) return resolve('no handler');
      handler(
        strict('OnHeadersReceivedDetails', {
          url,
          responseHeaders,
          statusCode: 200,
          method: 'GET',
          resourceType: 'mainFrame',
        }),
        (r) => resolve(r),
      );
    }),
  'create-contents': ({ kind }) => createContents(kind).id,
  minimize: () => {
    state.windows[0].minimized = true;
    state.windows[0].focused = false;
    return true;
  },
  'close-window': () => {
    for (const w of state.windows) closeWindow(w);
    return true;
  },
  quit: () => emitQuitRole(),
  activate: () => emitAppEvent('activate', false),
};

// The test process went away (its worker ended mid-test): quit as the user would, so the
// sessions stop through the ladder, and never outlive it by more than 15 s.
process.on('disconnect', () => {
  setTimeout(() => process.exit(71), 15_000).unref();
  void emitQuitRole();
});

process.on('message', async (message) => {
  const { id, op, args } = message;
  try {
    const command = COMMANDS[op];
    if (!command) throw new Error(`unknown command ${op}`);
    send({ id, ok: true, value: await command(args ?? {}) });
  } catch (e) {
    send({ id, ok: false, error: e instanceof Error ? e.message : String(e) });
  }
});

try {
  await import(pathToFileURL(mainFile).href);
} catch (e) {
  send({ event: 'error', text: `main failed to load: ${e?.stack ?? e}` }, () => process.exit(70));
}
// Electron emits `ready` once the main script ran; the shell's whenReady() resolves then.
setImmediate(() => {
  emitReady();
  setImmediate(() => send({ event: 'loaded' }));
});
