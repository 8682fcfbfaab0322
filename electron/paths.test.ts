import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { builtPaths, unpackedPath } from './paths.js';

describe('unpackedPath', () => {
  it('maps paths inside app.asar to app.asar.unpacked (POSIX and Windows)', () => {
    expect(unpackedPath('/opt/Pipescope/resources/app.asar/dist/electron/worker/w.js')).toBe(
      '/opt/Pipescope/resources/app.asar.unpacked/dist/electron/worker/w.js',
    );
    expect(unpackedPath('C:\\P\\resources\\app.asar\\dist\\x.js')).toBe(
      'C:\\P\\resources\\app.asar.unpacked\\dist\\x.js',
    );
  });

  it('leaves other paths alone (also an already unpacked one and look-alikes)', () => {
    for (const p of [
      '/work/main/dist/x.js',
      '/r/app.asar.unpacked/x.js',
      '/r/myapp.asar/x.js',
      '/r/app.asarx/y',
    ]) {
      expect(unpackedPath(p)).toBe(p);
    }
  });
});

describe('builtPaths', () => {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  it('name files in dist/ beside the sources (as `npm run build` writes them)', () => {
    expect(builtPaths.workerEntry()).toBe(
      path.join(root, 'dist', 'electron', 'worker', 'entry.js'),
    );
    expect(builtPaths.demoServer('healthy')).toBe(
      path.join(root, 'dist', 'electron', 'demo-servers', 'healthy.js'),
    );
    expect(builtPaths.renderer()).toBe(path.join(root, 'dist', 'renderer'));
    expect(builtPaths.preload()).toBe(path.join(root, 'dist', 'preload', 'preload.cjs'));
    expect(builtPaths.icon()).toBe(path.join(root, 'assets', 'icon.png'));
  });

  it.skipIf(!existsSync(path.join(root, 'dist', 'renderer')))(
    'every one of them exists once built',
    () => {
      for (const p of [
        builtPaths.workerEntry(),
        builtPaths.demoServer('healthy'),
        path.join(builtPaths.renderer(), 'index.html'),
        builtPaths.preload(),
        builtPaths.icon(),
      ])
        expect(existsSync(p), p).toBe(true);
    },
  );
});
