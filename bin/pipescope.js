#!/usr/bin/env node
// Entry for `npx pipescope`: the CLI is built to dist/ by `npm install` (the `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/electron/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('pipescope: not built yet; run `npm install` (or `npm run build`) first\n');
  process.exit(2);
}
const argv = process.argv.slice(2);
// Started by `pipescope-relay node` (the command `tap install` writes on Linux): the host's
// NODE_EXTRA_CA_CERTS was kept from this Node's start (it parses the bundle before any script
// runs), and goes back into the environment here, which the server inherits as the host gave it.
// The relay wrote it as `<its pid>:<value>`; its pid is this one (it exec'd Node) or the parent
// (a `node` shim that starts Node as its child). Any other value is the host's own: left as it is.
const FRONT_CA = 'PIPESCOPE_TAP_FRONT_CA';
const front = /^(\d+):/.exec(process.env[FRONT_CA] ?? '');
if (
  front &&
  (Number(front[1]) === process.pid || Number(front[1]) === process.ppid) &&
  process.env.NODE_EXTRA_CA_CERTS === undefined
) {
  process.env.NODE_EXTRA_CA_CERTS = process.env[FRONT_CA].slice(front[0].length);
  delete process.env[FRONT_CA];
}
// `pipescope tap -- <command>` starts every server of a host that uses it: it loads the relay
// alone, not the whole CLI (electron/tap/main.ts).
if (
  argv[0] === 'tap' &&
  argv[1] !== 'install' &&
  argv[1] !== 'uninstall' &&
  !/^(-h|--help)$/.test(argv[1] ?? '-h')
) {
  // A signal the host sends while the tap loads is held, not acted on by default (SIGTERM
  // would end the tap with its server orphaned; SIGUSR1 would open Node's inspector): the tap
  // forwards it once its server exists.
  const held = [];
  const hold = (signal) => held.push(signal);
  // SIGUSR1 first (an inspector is the worst of them); SIGUSR2 last: a test
  // (tap-relay.test.ts) takes its handler as the sign that all are there.
  const SIGNALS = ['SIGUSR1', 'SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR2'];
  for (const s of SIGNALS) process.on(s, hold);
  const { runTap } = await import(new URL('../dist/electron/tap/main.js', import.meta.url).href);
  await runTap(argv.slice(1), {
    held,
    release: () => {
      for (const s of SIGNALS) process.off(s, hold);
    },
  });
} else {
  const { main } = await import(entry.href);
  process.exitCode = await main(argv);
}
