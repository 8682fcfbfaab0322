#!/usr/bin/env node
// Entry for `npx pipescope`: the CLI is built to dist/ by `npm install` (the `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/electron/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('pipescope: not built yet; run `npm install` (or `npm run build`) first\n');
  process.exit(2);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
