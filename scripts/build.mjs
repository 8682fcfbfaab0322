#!/usr/bin/env node
// `npm run build [-- --force]`: TypeScript (tsc -b, incremental by itself), the WebAssembly
// scanner, the renderer and the preload bundles into dist/. A step whose outputs are newer than
// every one of its inputs is skipped, so a second build is a check, not a rebuild: `npm install`
// builds (prepare), and `npm test` / `npm start` / CI build again only what changed.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const force = process.argv.includes('--force');
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
    name: 'renderer',
    inputs: ['renderer', 'shared', 'vite.config.ts', 'tsconfig.renderer.json'],
    outputs: ['dist/renderer/index.html'],
    run: [bin('vite'), ['build', '--logLevel', 'warn']],
  },
  {
    name: 'preload',
    inputs: ['electron/preload', 'shared', 'vite.preload.config.ts'],
    outputs: ['dist/preload/preload.cjs'],
    run: [bin('vite'), ['build', '-c', 'vite.preload.config.ts', '--logLevel', 'warn']],
  },
];

/** Newest modification time under `p` (a file or a folder), 0 when absent. */
function newest(p) {
  const full = path.join(ROOT, p);
  if (!existsSync(full)) return 0;
  const st = statSync(full);
  if (!st.isDirectory()) return st.mtimeMs;
  let m = st.mtimeMs; // a deleted file changes its folder's time
  for (const e of readdirSync(full)) m = Math.max(m, newest(path.join(p, e)));
  return m;
}

function upToDate(step) {
  if (force || !step.inputs) return false;
  const inputs = Math.max(...[...step.inputs, ...COMMON].map(newest));
  return step.outputs.every((o) => {
    const full = path.join(ROOT, o);
    return existsSync(full) && statSync(full).mtimeMs >= inputs;
  });
}

const skipped = [];
for (const step of STEPS) {
  if (upToDate(step)) {
    skipped.push(step.name);
    continue;
  }
  const [cmd, args] = step.run;
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', shell: false });
  if (r.status !== 0) {
    process.stderr.write(`build: ${step.name} failed\n`);
    process.exit(r.status ?? 1);
  }
}
if (skipped.length > 0) process.stdout.write(`build: up to date: ${skipped.join(', ')}\n`);
