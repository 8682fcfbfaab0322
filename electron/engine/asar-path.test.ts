import { describe, expect, it } from 'vitest';
import { unpackedPath } from './asar-path.js';

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
