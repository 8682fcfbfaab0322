/**
 * Where the built files are: the one module every Node-side folder asks (the worker's entry,
 * the demo servers, the renderer, the preload, the icon), so that no folder computes another
 * folder's place from its own `import.meta.url`.
 *
 * The layout it answers for is `dist/` as `npm run build` writes it (DESIGN.md, STYLE.md):
 * dist/electron/{worker,demo-servers,…}, dist/renderer, dist/preload. Built, this module is
 * dist/electron/paths.js; loaded from source (unit tests run the TypeScript) it points at the
 * same dist folder. Packaged builds keep the worker and the demo servers outside the asar
 * archive (electron-builder `asarUnpack`): child processes and worker threads must start from
 * real files, so those paths go through `unpackedPath`.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const IN_ASAR = /([\\/])app\.asar([\\/])/;

/** A path inside `app.asar` mapped to its twin in `app.asar.unpacked`; others pass through. */
export function unpackedPath(p: string): string {
  return p.replace(IN_ASAR, '$1app.asar.unpacked$2');
}

const here = fileURLToPath(import.meta.url);
/** dist/electron, built or from source. */
const ELECTRON_DIST = here.endsWith('.ts')
  ? path.resolve(path.dirname(here), '..', 'dist', 'electron')
  : path.dirname(here);
/** dist/ */
const DIST = path.dirname(ELECTRON_DIST);

export const builtPaths = {
  /** The transport worker's entry (a worker thread starts from a real file). */
  workerEntry: (): string => unpackedPath(path.join(ELECTRON_DIST, 'worker', 'entry.js')),
  /** The result audit thread's entry (large answers are audited off the main thread). */
  auditWorkerEntry: (): string =>
    unpackedPath(path.join(ELECTRON_DIST, 'worker', 'audit-entry.js')),
  /** A demo server (a child process starts from a real file). */
  demoServer: (id: string): string =>
    unpackedPath(path.join(ELECTRON_DIST, 'demo-servers', `${id}.js`)),
  /** The built renderer (index.html and assets/). */
  renderer: (): string => path.join(DIST, 'renderer'),
  /** The sandboxed preload bundle. */
  preload: (): string => path.join(DIST, 'preload', 'preload.cjs'),
  /** The window icon (assets/ beside dist/). */
  icon: (): string => path.join(DIST, '..', 'assets', 'icon.png'),
  /** The `pipescope` command (bin/ beside dist/): what `tap install` puts in a host's config. */
  cliBin: (): string => path.join(DIST, '..', 'bin', 'pipescope.js'),
} as const;
