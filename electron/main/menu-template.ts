/**
 * The application menu as data (types only from 'electron'): File (new session, import config,
 * open trace, save trace, quit), Edit (so copy/paste work in inputs on macOS),
 * View (reload and DevTools only when unpackaged, zoom, full screen), Help (about, project page).
 * Actions are callbacks supplied by main.ts, so this module is tested in plain Node.
 */
import type { MenuItemConstructorOptions } from 'electron';

export interface MenuActions {
  newSession(): void;
  importConfig(): void;
  /** File → Open Trace…: choose a trace file and show it read-only. */
  openTrace(): void;
  /** File → Save Trace…: record the active session to a chosen file. */
  saveTrace(): void;
  showAbout(): void;
  /** Opens the project page (an https URL vetted by navigation.ts), or null when there is none. */
  openProjectPage: (() => void) | null;
}

export interface MenuInput {
  appName: string;
  platform: NodeJS.Platform;
  isPackaged: boolean;
  actions: MenuActions;
}

export function buildMenuTemplate(input: MenuInput): MenuItemConstructorOptions[] {
  const { actions } = input;
  const mac = input.platform === 'darwin';
  const dev = !input.isPackaged;

  const file: MenuItemConstructorOptions = {
    label: 'File',
    submenu: [
      {
        id: 'new-session',
        label: 'New Session',
        accelerator: 'CmdOrCtrl+N',
        click: actions.newSession,
      },
      {
        id: 'import-config',
        label: 'Import Config…',
        accelerator: 'CmdOrCtrl+I',
        click: actions.importConfig,
      },
      { type: 'separator' },
      {
        id: 'open-trace',
        label: 'Open Trace…',
        accelerator: 'CmdOrCtrl+O',
        click: actions.openTrace,
      },
      {
        id: 'save-trace',
        label: 'Save Trace…',
        accelerator: 'CmdOrCtrl+S',
        click: actions.saveTrace,
      },
      { type: 'separator' },
      mac ? { role: 'close' } : { role: 'quit', label: 'Quit' },
    ],
  };

  const edit: MenuItemConstructorOptions = {
    label: 'Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      { type: 'separator' },
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      { role: 'selectAll' },
    ],
  };

  const view: MenuItemConstructorOptions = {
    label: 'View',
    submenu: [
      ...(dev
        ? ([
            { role: 'reload' },
            { role: 'forceReload' },
            { role: 'toggleDevTools' },
            { type: 'separator' },
          ] satisfies MenuItemConstructorOptions[])
        : []),
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
    ],
  };

  const help: MenuItemConstructorOptions = {
    role: 'help',
    submenu: [
      { id: 'about', label: `About ${input.appName}`, click: actions.showAbout },
      actions.openProjectPage
        ? { id: 'project-page', label: 'Project README', click: actions.openProjectPage }
        : { id: 'project-page', label: 'Project README (no homepage configured)', enabled: false },
    ],
  };

  const appMenu: MenuItemConstructorOptions = {
    label: input.appName,
    submenu: [
      { id: 'about-app', label: `About ${input.appName}`, click: actions.showAbout },
      { type: 'separator' },
      { role: 'services' },
      { type: 'separator' },
      { role: 'hide' },
      { role: 'hideOthers' },
      { role: 'unhide' },
      { type: 'separator' },
      { role: 'quit' },
    ],
  };

  return mac ? [appMenu, file, edit, view, { role: 'windowMenu' }, help] : [file, edit, view, help];
}
