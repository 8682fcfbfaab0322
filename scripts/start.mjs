#!/usr/bin/env node
// `npm start` = `npm run build && node scripts/start.mjs [--no-electron | --electron] [--port <n>] [--no-open]`.
// Launches the Electron app; where Electron cannot run (binary not downloaded, no display, dies at
// startup) prints one line saying why and starts browser mode instead. The logic lives in
// electron/main/launcher.ts (built to dist/, tested); this file only finds and calls it.
import { existsSync } from 'node:fs';

const launcher = new URL('../dist/electron/main/launcher.js', import.meta.url);
if (!existsSync(launcher)) {
  process.stderr.write(
    'pipescope: not built yet; run `npm run build` (npm start does it for you)\n',
  );
  process.exit(2);
}
const { runStart } = await import(launcher.href);
process.exitCode = await runStart(process.argv.slice(2));
