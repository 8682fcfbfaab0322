/**
 * The process source of this platform (source.ts): /proc on Linux, ps on macOS, and elsewhere
 * an honest "not available" with the reason.
 */
import { linuxSource } from './linux.js';
import { macosSource } from './macos.js';
import { type ProcessSource, unavailableSource } from './source.js';

export function processSource(platform: NodeJS.Platform = process.platform): ProcessSource {
  if (platform === 'linux') return linuxSource();
  if (platform === 'darwin') return macosSource();
  return unavailableSource(
    `process evidence is not available on ${platform}: Pipescope reads it from /proc on Linux and from ps on macOS`,
  );
}
