#!/usr/bin/env node
// The tap's native relay (electron/tap/native/*.c, relay.c says what it is) into
// dist/electron/tap/pipescope-relay:
// Linux only (splice/tee), with the C compiler of $CC or `cc`. Without one the build goes on and
// says so: `pipescope tap` then relays in JavaScript (electron/tap/native-relay.ts says why).
// `--strict` (the tests) makes warnings errors.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_DIR = path.join(ROOT, 'electron/tap/native');
const RELAY_SOURCES = readdirSync(SOURCE_DIR)
  .filter((f) => f.endsWith('.c'))
  .sort()
  .map((f) => path.join(SOURCE_DIR, f));
const OUT_DIR = path.join(ROOT, 'dist/electron/tap');
const OUT = path.join(OUT_DIR, 'pipescope-relay');
/** What the build found, for the step's stamp and for anyone asking why there is no binary. */
const NOTE = path.join(OUT_DIR, 'pipescope-relay.json');

mkdirSync(OUT_DIR, { recursive: true });
const note = (built, reason) =>
  writeFileSync(NOTE, `${JSON.stringify({ built, reason }, null, 2)}\n`);

if (process.platform !== 'linux') {
  note(false, `not on ${process.platform}`);
  process.exit(0);
}
const cc = process.env.CC || 'cc';
const flags = ['-O2', '-std=gnu11', '-pthread', '-Wall', '-Wextra', '-o', OUT, ...RELAY_SOURCES];
if (process.argv.includes('--strict')) flags.unshift('-Werror');
const r = spawnSync(cc, flags, { stdio: ['ignore', 'inherit', 'inherit'] });
if (r.error || r.status !== 0) {
  rmSync(OUT, { force: true });
  const why = r.error ? `${cc}: ${r.error.message}` : `${cc} failed (${r.status})`;
  note(false, why);
  process.stderr.write(
    `build: the tap's native relay was not built (${why}); pipescope tap relays in JavaScript\n`,
  );
  if (process.argv.includes('--strict')) process.exit(1);
  process.exit(0);
}
note(true, null);
