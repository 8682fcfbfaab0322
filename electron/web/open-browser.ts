/**
 * Opens the browser-mode URL in the user's browser, best effort.
 *
 * Owns: a private launch file (0600 in a 0700 temp dir) that redirects to the tokenized URL, so
 * the token never appears in the argv of the opener or the browser (argv is readable by other
 * local users through /proc). Fed by: run.ts once the server listens. Never uses a shell: the
 * opener gets an argv array; errors are ignored (the URL is printed anyway).
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

interface Opener {
  command: string;
  args: string[];
}

function onPath(name: string): boolean {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    try {
      accessSync(path.join(dir, name), constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}

/** The platform's opener for a file, or null when there is none (or no display). */
function openerFor(target: string): Opener | null {
  if (process.platform === 'darwin') return { command: 'open', args: [target] };
  if (process.platform === 'win32') {
    // rundll32 takes the argv as is; `cmd /c start` would parse the target as shell text.
    return { command: 'rundll32', args: ['url.dll,FileProtocolHandler', target] };
  }
  if (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return null;
  return onPath('xdg-open') ? { command: 'xdg-open', args: [target] } : null;
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/**
 * Tries to open `url`; returns a cleanup for the launch file (call it on shutdown) and whether
 * an opener was started. Never throws.
 */
export function openBrowser(url: string): { opened: boolean; cleanup: () => void } {
  let dir: string | null = null;
  const cleanup = (): void => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  };
  try {
    if (!openerFor('probe')) return { opened: false, cleanup };
    dir = mkdtempSync(path.join(tmpdir(), 'pipescope-web-'));
    const file = path.join(dir, 'open.html');
    const href = escapeAttribute(url);
    writeFileSync(
      file,
      `<!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer">` +
        `<meta http-equiv="refresh" content="0;url=${href}"><title>Pipescope</title>` +
        `<a href="${href}">Open Pipescope</a>\n`,
      { mode: 0o600 },
    );
    const target = process.platform === 'win32' ? file : pathToFileURL(file).href;
    const opener = openerFor(target);
    if (!opener) return { opened: false, cleanup };
    const child = spawn(opener.command, opener.args, { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
    return { opened: true, cleanup };
  } catch {
    return { opened: false, cleanup };
  }
}
