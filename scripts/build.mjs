#!/usr/bin/env node
// `npm run build [-- --force]`: TypeScript (tsc -b, incremental by itself), the WebAssembly
// scanner, the renderer and the preload bundles into dist/. Each of the last three records the
// fingerprint of its inputs (every file's path, size and modification time, taken before the
// step ran) in dist/.build-stamps.json; a step whose outputs exist and whose inputs still have
// that fingerprint is skipped. So a second build is a check, not a rebuild (`npm install`
// builds, and `npm test` / `npm start` / CI build again only what changed), and a file saved
// while its step ran, or replaced by an older copy, is built the next time.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const force = process.argv.includes('--force');
/** `--quiet`: no "up to date" line (scripts/start.mjs: its first lines are the launch's). */
const quiet = process.argv.includes('--quiet');
const STAMPS = path.join(ROOT, 'dist', '.build-stamps.json');
const bin = (name) => path.join(ROOT, 'node_modules', '.bin', name);

/** What every step depends on besides its own sources. */
const COMMON = ['package.json', 'package-lock.json', 'tsconfig.base.json'];

const STEPS = [
  // tsc -b decides for itself what is out of date (its .tsbuildinfo files).
  { name: 'typescript', run: [bin('tsc'), ['-b']] },
  {
    name: 'wasm scanner',
    inputs: ['electron/wasm'],
    outputs: ['dist/electron/worker/read/json-scan.wasm'],
    run: ['npm', ['run', 'build:wasm', '--silent']],
  },
  {
    // Optional: without a C compiler the tap relays in JavaScript (the script says so).
    name: 'native relay',
    inputs: ['electron/tap/native', 'scripts/build-native.mjs'],
    outputs: ['dist/electron/tap/pipescope-relay.json'],
    run: [process.execPath, ['scripts/build-native.mjs']],
  },
  {
    name: 'renderer',
    inputs: ['renderer', 'shared', 'assets/icon.svg', 'vite.config.ts', 'tsconfig.renderer.json'],
    outputs: ['dist/renderer/index.html', 'dist/renderer/assets'],
    run: [bin('vite'), ['build', '--logLevel', 'warn']],
  },
  {
    name: 'preload',
    inputs: ['electron/preload', 'shared', 'vite.preload.config.ts'],
    outputs: ['dist/preload/preload.cjs'],
    run: [bin('vite'), ['build', '-c', 'vite.preload.config.ts', '--logLevel', 'warn']],
  },
];

/** Every file under `p` (a file or a folder) as `path size mtime` lines, in order. */
function listing(p, out) {
  const full = path.join(ROOT, p);
  if (!existsSync(full)) return;
  const st = statSync(full);
  if (!st.isDirectory()) {
    out.push(`${p} ${st.size} ${st.mtimeMs}`);
    return;
  }
  for (const e of readdirSync(full).sort()) listing(path.join(p, e), out);
}

function fingerprint(step) {
  const lines = [];
  for (const p of [...step.inputs, ...COMMON]) listing(p, lines);
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

function readStamps() {
  try {
    return JSON.parse(readFileSync(STAMPS, 'utf8'));
  } catch {
    return {};
  }
}

const stamps = readStamps();

function upToDate(step, print) {
  if (force || !step.inputs) return false;
  return stamps[step.name] === print && step.outputs.every((o) => existsSync(path.join(ROOT, o)));
}

const skipped = [];
for (const step of STEPS) {
  // Taken before the step runs: a file saved meanwhile changes it, so the next build runs again.
  const print = step.inputs ? fingerprint(step) : null;
  if (upToDate(step, print)) {
    skipped.push(step.name);
    continue;
  }
  const [cmd, args] = step.run;
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', shell: false });
  if (r.status !== 0) {
    process.stderr.write(`build: ${step.name} failed\n`);
    process.exit(r.status ?? 1);
  }
  if (print !== null) {
    stamps[step.name] = print;
    mkdirSync(path.dirname(STAMPS), { recursive: true });
    writeFileSync(STAMPS, `${JSON.stringify(stamps, null, 2)}\n`);
  }
}
if (skipped.length > 0 && !quiet)
  process.stdout.write(`build: up to date: ${skipped.join(', ')}\n`);
