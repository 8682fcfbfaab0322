#!/usr/bin/env node
// `npm start [-- --no-electron | --electron] [--port <n>] [--no-open]`: builds what changed
// (scripts/build.mjs), then launches the Electron app; where Electron cannot run (binary not
// downloaded, no display, dies at startup) it prints one line saying why and starts browser
// mode instead. The logic lives in electron/main/launcher.ts (built to dist/, tested); this
// file only builds, finds and calls it.
//
// The build runs here rather than as `npm run build && node scripts/start.mjs`: that made npm
// run a shell whose child this was, and a SIGTERM to `npm start` ended the shell and left this
// process and every server it had started running. Now npm's shell runs one command (which
// the shell replaces itself with, or whose signals npm passes on), and the launcher stops what
// it started on SIGINT, SIGTERM and SIGHUP.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const build = spawnSync(
  process.execPath,
  [fileURLToPath(new URL('./build.mjs', import.meta.url)), '--quiet'],
  { stdio: 'inherit' },
);
if (build.status !== 0) process.exit(build.status ?? 1);

const launcher = new URL('../dist/electron/main/launcher.js', import.meta.url);
if (!existsSync(launcher)) {
  process.stderr.write('pipescope: not built yet; run `npm run build`\n');
  process.exit(2);
}
const { runStart } = await import(launcher.href);
process.exitCode = await runStart(process.argv.slice(2));
