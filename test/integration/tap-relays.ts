/**
 * The tap's two relays, for the tap suites that run once with each: `native` (Linux, splice;
 * dist/electron/tap/pipescope-relay, built by `npm run build` when a C compiler is there) and
 * `node` (the JavaScript relay, which every other platform uses). Where the native relay was not
 * built, its runs are left out: test/integration/native-relay.test.ts fails on Linux when a C
 * compiler is there and the relay is missing, so CI cannot skip them by accident.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './helpers.js';

export const NATIVE_RELAY = path.join(REPO, 'dist/electron/tap/pipescope-relay');
/** The native relay's sources (relay.c says what it is; relay.h, what its parts share). */
export const RELAY_SOURCES = readdirSync(path.join(REPO, 'electron/tap/native'))
  .filter((f) => f.endsWith('.c'))
  .sort()
  .map((f) => path.join(REPO, 'electron/tap/native', f));

export interface TapRelayVariant {
  name: 'native' | 'node';
  /** What the tap's environment adds to choose it. */
  env: Record<string, string>;
}

export const TAP_RELAYS: TapRelayVariant[] = [
  ...(process.platform === 'linux' && existsSync(NATIVE_RELAY)
    ? [{ name: 'native' as const, env: {} }]
    : []),
  { name: 'node', env: { PIPESCOPE_TAP_RELAY: 'node' } },
];
