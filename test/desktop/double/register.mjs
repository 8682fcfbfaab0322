/**
 * `node --import ./register.mjs`: the test-only resolver hook that gives the shell the Electron
 * double for `electron` (hooks.mjs), and the versions Electron's Node reports, so the shell and
 * the engine behave as inside Electron (demo servers get ELECTRON_RUN_AS_NODE). Never loaded by
 * production code: only test/desktop's driver runs with it.
 */
import { register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
import { state } from './state.mjs';

const { port1, port2 } = new MessageChannel();
port1.on('message', (m) => state.importers.push(m.importer));
port1.unref();
register('./hooks.mjs', import.meta.url, {
  data: { doubleUrl: new URL('./main-double.mjs', import.meta.url).href, port: port2 },
  transferList: [port2],
});

// Electron 45's (package.json pins it); the chrome one is what About shows.
process.versions.electron = process.env.DOUBLE_ELECTRON_VERSION ?? '45.5.0';
process.versions.chrome = '140.0.0.0';
