/**
 * Packs the app with electron-builder (the Linux `dir` target, electron-builder.yml as it is)
 * against a stand-in Electron distribution instead of the real one, which cannot be downloaded
 * here (GitHub is unreachable; CI has no network but the package registries).
 *
 * The stand-in (`makeStandInElectron`) is shaped like an Electron linux-x64 dist as far as
 * electron-builder reads one (app-builder-lib ElectronFramework.js: it copies the folder,
 * renames `electron` to the executable name, moves LICENSE to LICENSE.electron.txt, and
 * @electron/fuses flips the fuse wire it finds in the executable): an `electron` shell script
 * that says what it is, carrying a fuse wire with Electron's default values; resources/; LICENSE;
 * version. It runs nothing of Electron's.
 *
 * Downloads fail at once instead of hanging (`downloadTrap`): electron-builder runs with every
 * mirror and proxy it reads pointing at a local server that records each request and answers
 * 403, and with empty caches, so a pack that would fetch anything fails naming what it fetched.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { ROOT } from './shell-process.js';

/** @electron/fuses' sentinel: the fuse wire follows it (version byte, length byte, states). */
export const FUSE_SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
/**
 * Electron's defaults, in @electron/fuses' FuseV1Options order (electron/electron
 * build/fuses/fuses.json5): RunAsNode on, CookieEncryption off, NodeOptions on,
 * NodeCliInspect on, EmbeddedAsarIntegrityValidation off, OnlyLoadAppFromAsar off,
 * LoadBrowserProcessSpecificV8Snapshot off, GrantFileProtocolExtraPrivileges on.
 */
export const ELECTRON_DEFAULT_FUSES = '10110001';
/** The Electron version package.json pins (electron-builder reads it from there). */
export const ELECTRON_VERSION = '45.5.0';

/** Writes a stand-in Electron linux-x64 distribution into `dir`. */
export function makeStandInElectron(dir: string, fuses = ELECTRON_DEFAULT_FUSES): void {
  mkdirSync(path.join(dir, 'resources'), { recursive: true });
  const script = [
    '#!/bin/sh',
    '# A stand-in for the Electron executable (Pipescope test/desktop/pack.ts): packaging',
    '# tests build installers against it; it cannot run the app. The line below is a fuse wire',
    '# in the format @electron/fuses reads and flips.',
    'echo "stand-in Electron: this build is for packaging tests only" >&2',
    'exit 1',
  ].join('\n');
  const wire = Buffer.concat([
    Buffer.from(`${script}\n# `),
    Buffer.from(FUSE_SENTINEL),
    Buffer.from([1, fuses.length]),
    Buffer.from(fuses),
    Buffer.from('\n'),
  ]);
  writeFileSync(path.join(dir, 'electron'), wire);
  chmodSync(path.join(dir, 'electron'), 0o755);
  writeFileSync(path.join(dir, 'LICENSE'), 'Stand-in for Electron’s LICENSE (MIT).\n');
  writeFileSync(path.join(dir, 'version'), ELECTRON_VERSION);
}

export interface Trap {
  url: string;
  /** Every request that reached it: "GET http://…" or "CONNECT host:port". */
  hits: string[];
  onHit(listener: () => void): void;
  close(): Promise<void>;
}

/** A local server that refuses every download and remembers it was asked. */
export async function downloadTrap(): Promise<Trap> {
  const hits: string[] = [];
  const listeners: (() => void)[] = [];
  const hit = (what: string) => {
    hits.push(what);
    for (const l of listeners) l();
  };
  const server: Server = createServer((req, res) => {
    hit(`${req.method} ${req.url}`);
    res.writeHead(403, { 'Content-Type': 'text/plain', Connection: 'close' });
    res.end('downloads are refused in Pipescope packaging tests\n');
  });
  server.on('connect', (req, socket) => {
    hit(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    onHit: (l) => listeners.push(l),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The environment electron-builder runs in: every way it downloads leads to the trap. */
export function offlineEnv(trap: Trap, scratch: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: path.join(scratch, 'home'),
    // Its own: electron-builder keeps download locks in the temp folder, and one left by a run
    // we ended must not make the next run (or another checkout's) wait for it.
    TMPDIR: path.join(scratch, 'tmp'),
    // Electron zips (@electron/get), electron-builder's tools (appimage, fpm, nsis, …).
    ELECTRON_MIRROR: `${trap.url}/electron/`,
    ELECTRON_BUILDER_BINARIES_MIRROR: `${trap.url}/electron-builder-binaries/`,
    ELECTRON_BUILDER_BINARIES_ALLOW_HTTP: 'true',
    // Anything else that honours a proxy.
    HTTPS_PROXY: trap.url,
    HTTP_PROXY: trap.url,
    https_proxy: trap.url,
    http_proxy: trap.url,
    ELECTRON_GET_USE_PROXY: '1',
    GLOBAL_AGENT_HTTPS_PROXY: trap.url,
    GLOBAL_AGENT_HTTP_PROXY: trap.url,
    // Empty caches: nothing downloaded before can stand in for a download now.
    ELECTRON_BUILDER_CACHE: path.join(scratch, 'cache', 'electron-builder'),
    ELECTRON_CACHE: path.join(scratch, 'cache', 'electron'),
    XDG_CACHE_HOME: path.join(scratch, 'cache'),
    CI: 'true',
  };
}

export interface PackRun {
  code: number | null;
  signal: string | null;
  log: string;
  ms: number;
  /** Set when the run was ended by us (the trap was hit, or the deadline passed). */
  stopped: string | null;
}

/**
 * Runs electron-builder (`--linux <target>`, electron-builder.yml plus `overrides`) in a child
 * process. It is ended at once when the trap is hit, or after `deadlineMs`.
 */
export function runElectronBuilder(options: {
  trap: Trap;
  scratch: string;
  output: string;
  overrides: Record<string, string>;
  target?: string;
  deadlineMs?: number;
}): Promise<PackRun> {
  const started = Date.now();
  mkdirSync(path.join(options.scratch, 'tmp'), { recursive: true });
  const args = [
    path.join(ROOT, 'node_modules/electron-builder/cli.js'),
    '--linux',
    options.target ?? 'dir',
    '--x64',
    '--publish',
    'never',
    `-c.directories.output=${options.output}`,
    ...Object.entries(options.overrides).map(([k, v]) => `-c.${k}=${v}`),
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    env: offlineEnv(options.trap, options.scratch),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (d: Buffer) => {
    log += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    log += d.toString();
  });
  let stopped: string | null = null;
  const stop = (why: string) => {
    if (stopped || child.exitCode !== null) return;
    stopped = why;
    // SIGTERM first: electron-builder releases its locks on the way out.
    child.kill('SIGTERM');
    setTimeout(() => child.exitCode === null && child.kill('SIGKILL'), 5000).unref();
  };
  options.trap.onHit(() => stop(`it tried to download: ${options.trap.hits.join(', ')}`));
  const deadlineMs = options.deadlineMs ?? 180_000;
  const timer = setTimeout(
    () => stop(`it did not finish within ${deadlineMs / 1000} s (a download outside the trap?)`),
    deadlineMs,
  );
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, log, ms: Date.now() - started, stopped });
    });
  });
}
