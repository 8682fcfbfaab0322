import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it, vi } from 'vitest';
import { buildMenuTemplate, type MenuActions } from './menu-template.js';

function actions(withProject = true): MenuActions & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    newSession: () => calls.push('new'),
    importConfig: () => calls.push('import'),
    openTrace: () => calls.push('open-trace'),
    saveTrace: () => calls.push('save-trace'),
    showAbout: () => calls.push('about'),
    openProjectPage: withProject ? () => calls.push('project') : null,
  };
}

function items(template: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return template.flatMap((m) => [m, ...(Array.isArray(m.submenu) ? items(m.submenu) : [])]);
}

function byId(template: MenuItemConstructorOptions[], id: string): MenuItemConstructorOptions {
  const found = items(template).find((i) => i.id === id);
  if (!found) throw new Error(`no menu item ${id}`);
  return found;
}

function roles(template: MenuItemConstructorOptions[]): string[] {
  return items(template).flatMap((i) => (i.role ? [i.role] : []));
}

describe('buildMenuTemplate', () => {
  const linux = (isPackaged: boolean, a = actions()) =>
    buildMenuTemplate({ appName: 'Pipescope', platform: 'linux', isPackaged, actions: a });

  it('has File, Edit, View and Help on Linux and Windows', () => {
    expect(linux(true).map((m) => m.label ?? m.role)).toEqual(['File', 'Edit', 'View', 'help']);
  });

  it('wires New Session, Import Config, the trace items, About and the project page', () => {
    const a = actions();
    const t = linux(true, a);
    const ids = [
      'new-session',
      'import-config',
      'open-trace',
      'save-trace',
      'about',
      'project-page',
    ];
    for (const id of ids) {
      const click = byId(t, id).click;
      expect(click, id).toBeTypeOf('function');
      click?.(undefined as never, undefined, undefined as never);
    }
    expect(a.calls).toEqual(['new', 'import', 'open-trace', 'save-trace', 'about', 'project']);
  });

  it('enables Open/Save Trace with their accelerators', () => {
    const t = linux(true);
    expect(byId(t, 'open-trace')).toMatchObject({
      label: 'Open Trace…',
      accelerator: 'CmdOrCtrl+O',
    });
    expect(byId(t, 'save-trace')).toMatchObject({
      label: 'Save Trace…',
      accelerator: 'CmdOrCtrl+S',
    });
    expect(byId(t, 'open-trace').enabled).not.toBe(false);
    expect(byId(t, 'save-trace').enabled).not.toBe(false);
  });

  it('offers reload and DevTools only when unpackaged', () => {
    expect(roles(linux(true))).not.toEqual(expect.arrayContaining(['reload']));
    expect(roles(linux(true))).not.toContain('toggleDevTools');
    expect(roles(linux(true))).not.toContain('forceReload');
    expect(roles(linux(false))).toEqual(expect.arrayContaining(['reload', 'toggleDevTools']));
    expect(roles(linux(true))).toEqual(
      expect.arrayContaining([
        'resetZoom',
        'zoomIn',
        'zoomOut',
        'togglefullscreen',
        'quit',
        'copy',
        'paste',
      ]),
    );
  });

  it('disables the project page when there is no https homepage', () => {
    const item = byId(linux(true, actions(false)), 'project-page');
    expect(item.enabled).toBe(false);
    expect(item.click).toBeUndefined();
  });

  it('adds the app menu on macOS, with Quit there', () => {
    const onClick = vi.fn();
    const t = buildMenuTemplate({
      appName: 'Pipescope',
      platform: 'darwin',
      isPackaged: true,
      actions: { ...actions(), showAbout: onClick },
    });
    expect(t[0].label).toBe('Pipescope');
    expect(roles([t[0]])).toContain('quit');
    byId(t, 'about-app').click?.(undefined as never, undefined, undefined as never);
    expect(onClick).toHaveBeenCalledOnce();
  });
});
