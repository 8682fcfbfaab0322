/**
 * The page names its icon (assets/icon.svg, emitted by the renderer build) and both ways the UI
 * is served hand it out: browser mode's static files and Electron's app:// protocol. Without
 * the link Chromium asked for /favicon.ico on every load and got a 404 (issue 22). Read from
 * the built files (`npm run build`; `npm test` builds first).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createAppProtocolHandler } from '../electron/main/app-protocol.js';
import { openStaticRoot, resolveStaticFile } from '../electron/web/static-files.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RENDERER = path.join(ROOT, 'dist', 'renderer');
const INDEX = path.join(RENDERER, 'index.html');
const MUST_RUN = process.env.CI === 'true';

describe.skipIf(!existsSync(INDEX) && !MUST_RUN)('the favicon (npm run build)', () => {
  const html = existsSync(INDEX) ? readFileSync(INDEX, 'utf8') : '';
  const href = /<link rel="icon"[^>]*href="\.\/([^"]+)"/.exec(html)?.[1] ?? '';

  it('is linked from the page, as a file of the build', () => {
    expect(href).toMatch(/^assets\/icon-[\w-]+\.svg$/);
    const svg = readFileSync(path.join(RENDERER, href), 'utf8');
    expect(svg).toBe(readFileSync(path.join(ROOT, 'assets', 'icon.svg'), 'utf8'));
  });

  it('is served by Electron’s app:// protocol', async () => {
    const res = await createAppProtocolHandler(RENDERER)({
      url: `app://pipescope/${href}`,
      method: 'GET',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
  });

  it('is served by browser mode', async () => {
    const root = await openStaticRoot(RENDERER);
    expect(await resolveStaticFile(root, `/${href}`)).toBe(
      path.join(root.real, ...href.split('/')),
    );
  });
});
