/**
 * Packaged builds keep the worker and the demo servers outside the asar archive
 * (electron-builder `asarUnpack`): child processes and worker threads must start from real
 * files. Maps a path inside `app.asar` to its twin in `app.asar.unpacked`; others pass through.
 */
const IN_ASAR = /([\\/])app\.asar([\\/])/;

export function unpackedPath(p: string): string {
  return p.replace(IN_ASAR, '$1app.asar.unpacked$2');
}
