/**
 * The child's environment: a minimal default plus what the server config names
 * (HARDENING.md 21). A secret in the parent's environment never reaches a server by accident.
 */

const POSIX_DEFAULTS = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];
const WINDOWS_DEFAULTS = [
  'APPDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'LOCALAPPDATA',
  'PATH',
  'PATHEXT',
  'PROCESSOR_ARCHITECTURE',
  'SYSTEMDRIVE',
  'SYSTEMROOT',
  'TEMP',
  'USERNAME',
  'USERPROFILE',
  'WINDIR',
];

export function defaultEnvNames(platform: NodeJS.Platform = process.platform): string[] {
  return platform === 'win32' ? WINDOWS_DEFAULTS : POSIX_DEFAULTS;
}

export function buildChildEnv(
  configured: Record<string, string>,
  parent: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of defaultEnvNames(platform)) {
    const value = parent[name];
    // Shell functions exported by bash ("() {...}") are a known injection vector: skip them.
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  for (const [name, value] of Object.entries(configured)) env[name] = value;
  return env;
}
