/**
 * What `pipescope tap` costs a host: `node tap-cost.mjs [--runs N] [--pairs N] [--messages N]
 * [--starts N] [--quick]` (after `npm run build`). Every figure is the tap against the same
 * server spawned directly, measured in the same run, interleaved. `tap` is the tap as a host runs it (on Linux
 * its native relay, electron/tap/native/relay.c, when it was built), `tap-node` the tap with its
 * JavaScript relay (PIPESCOPE_TAP_RELAY=node: other platforms, or no C compiler). More paths
 * split the cost: `native` is the native relay and the thread reading its copies with no
 * observer (what the relay costs by itself); `relay` the JavaScript Relay alone, `stub` the same
 * feeding a worker that only acknowledges the copies; `pipe` a bare Node relay, `stdout.pipe()`
 * both ways, the floor for any relay written in Node. `floor` and `floor-copy` are the floor for
 * any relay at all on this machine (floor-relay.c, compiled here when a C compiler is found): a
 * splice relay with no observer, and the same with one thread that reads a copy of every byte.
 * The latency rows add `tap-noyield`: the tap with its observer's threads not giving way to the
 * host's path (PIPESCOPE_TAP_YIELD=0; electron/tap/native/yield.c says what they do).
 *
 * 1. Throughput: a server writes one 64 MiB JSON-RPC response line and waits for stdin EOF. The
 *    host reads it all: ms from its first byte to its last, and from spawn to the last byte.
 *    `at spawn`: the server writes as soon as it has built the line (the tap's observer is
 *    still loading then); `settled`: it says it is ready, and writes when the host
 *    asks, once the tap process has been idle for 100 ms (its observer loaded). Two hosts: this
 *    process (Node's `spawn`: the host's end is a socketpair) and a Python host
 *    (`subprocess.PIPE`: real pipes, as the "a direct pipe"), when python3 is there,
 *    at spawn and settled (`--pairs` runs of direct, tap and floor).
 * 2. Latency: a server answers each request line at once (a response with its id, the params
 *    echoed). The host sends one small request, waits for its answer, sends the next: p50/p99
 *    of the round trips, after the first answer, a 1 s settle and 200 warm-up requests.
 * 3. Start-up: spawn to the first byte of a server that prints one line at once and waits for
 *    stdin EOF: a Node server, and `sh` (which starts in a few ms, so the tap's own start-up is
 *    what is left).
 * 4. Memory: the tap process's own peak RSS (VmHWM of the pid this process spawned, i.e. the
 *    `node bin/pipescope.js` process with its relay and observer threads, not the server, which
 *    is its child), read until it exits, in the settled throughput runs and in a run where the
 *    host stops reading for 2 s in the middle of the 64 MiB answer.
 *
 * The servers and the bare relays are tap-roles.mjs, the Python host tap-host.py (run by
 * tap-python.mjs), what it reads of its processes in /proc tap-proc.mjs, and the tables and
 * verdicts tap-report.mjs.
 *
 * On a shared machine the figures move with its load: run it alone, or in a cgroup of its own.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { endKind, kib, status, untilIdle, watchMemory } from './tap-proc.mjs';
import { pythonHost } from './tap-python.mjs';
import { pctl, report } from './tap-report.mjs';
import { FRAME, READY } from './tap-roles.mjs';

/** The servers and the bare relays (tap-roles.mjs). */
const ROLES = fileURLToPath(new URL('./tap-roles.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'pipescope.js');
const RELAY = path.join(ROOT, 'dist', 'electron', 'tap', 'relay.js');
/** The native relay, which `tap install` puts in front of the tap's Node where it can run. */
const FRONT = path.join(ROOT, 'dist', 'electron', 'tap', 'pipescope-relay');

function parseArgs(argv) {
  const quick = argv.includes('--quick');
  // `pairs`: throughput runs of the budget's own paths (direct, tap and the floors), whose
  // median ratio moves by ±30% from one set of 3 to the next on a two-core machine; `runs`:
  // those of the paths that only split the cost.
  const opts = {
    runs: quick ? 2 : 3,
    pairs: quick ? 3 : 9,
    messages: quick ? 500 : 2000,
    starts: quick ? 5 : 10,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') continue;
    const key = {
      '--runs': 'runs',
      '--pairs': 'pairs',
      '--messages': 'messages',
      '--starts': 'starts',
    }[a];
    const v = Number(argv[++i]);
    if (!key || !Number.isInteger(v) || v < 1) throw new Error(`bad option ${a} ${argv[i] ?? ''}`);
    opts[key] = v;
  }
  return opts;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let TMP = '';
/** floor-relay.c, built into TMP (null: no C compiler, the floor rows are left out). */
let FLOOR = null;

function buildFloor() {
  if (process.platform !== 'linux') return null;
  const out = path.join(TMP, 'floor-relay');
  const cc = process.env.CC || 'cc';
  const r = spawnSync(
    cc,
    ['-O2', '-pthread', '-o', out, path.join(ROOT, 'test/bench/floor-relay.c')],
    {
      stdio: 'ignore',
    },
  );
  return r.status === 0 ? out : null;
}
let ENV = process.env;
/** Every process started here (hosts, taps, direct servers) and the taps' servers, by pid. */
const started = new Set();
const servers = new Set();

/** The server's command line: direct, through the tap, or through the observer-less relay. */
function command(mode, server) {
  if (mode === 'direct') return server;
  if (mode === 'relay') return [process.execPath, ROLES, '--relay-only', '--', ...server];
  if (mode === 'stub') return [process.execPath, ROLES, '--relay-stub', '--', ...server];
  if (mode === 'pipe') return [process.execPath, ROLES, '--relay-pipe', '--', ...server];
  if (mode === 'native') return [process.execPath, ROLES, '--relay-native', '--', ...server];
  if (mode === 'floor') return [FLOOR, '--', ...server];
  if (mode === 'floor-copy') return [FLOOR, '--copy', '--', ...server];
  // As `tap install` writes it on Linux: the relay starts the tap's Node (relay.c exec_node).
  if (mode === 'tap-front')
    return [FRONT, 'node', process.execPath, BIN, 'tap', '--no-publish', '--', ...server];
  return [process.execPath, BIN, 'tap', '--no-publish', '--', ...server];
}
const nodeServer = (kind) => [process.execPath, ROLES, '--serve', kind];

function start(mode, server, baseEnv = ENV) {
  const [cmd, ...args] = command(mode, server);
  // `tap-node`: the tap with its JavaScript relay (where the native one cannot run);
  // `tap-noyield`: its observer's threads not giving way to the host's path (yield.c).
  const env =
    mode === 'tap-node'
      ? { ...baseEnv, PIPESCOPE_TAP_RELAY: 'node' }
      : mode === 'tap-noyield'
        ? { ...baseEnv, PIPESCOPE_TAP_YIELD: '0' }
        : baseEnv;
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], env });
  started.add(child);
  child.stderr.on('data', () => {}); // the tap's own lines (flight recorder written ...)
  child.exited = new Promise((resolve) => child.once('exit', resolve));
  child.stdin.on('error', () => {});
  return child;
}

/** Ends a child: stdin closed (every server here then exits), SIGKILL after `ms`. */
async function finish(child, ms = 8000) {
  if (child.exitCode === null && child.signalCode === null) {
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    await child.exited;
    clearTimeout(timer);
  }
  started.delete(child);
}

// 1 and 4: one 64 MiB line, read by this process.
async function throughputOnce(mode, { settled = false, stallMs = 0 } = {}) {
  const t0 = performance.now();
  const child = start(mode, nodeServer(settled ? 'big-ask' : 'big'));
  const hostEnd = endKind(child.pid);
  const mem = mode === 'direct' || mode.startsWith('floor') ? null : watchMemory(child, servers);
  let first = null;
  let got = 0;
  let asked = t0;
  let readyLine = settled ? READY.length : 0; // big-ask says ready first: not counted
  let isReady = () => {};
  const ready = new Promise((resolve) => {
    isReady = resolve;
  });
  const received = new Promise((resolve, reject) => {
    let stalled = false;
    child.stdout.on('data', (chunk) => {
      let d = chunk;
      if (readyLine > 0) {
        const n = Math.min(readyLine, d.length);
        readyLine -= n;
        d = d.subarray(n);
        if (readyLine === 0) isReady();
        if (d.length === 0) return;
      }
      first ??= performance.now();
      got += d.length;
      if (stallMs > 0 && !stalled && got >= FRAME / 2) {
        stalled = true;
        child.stdout.pause();
        setTimeout(() => child.stdout.resume(), stallMs);
      }
      if (got >= FRAME) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${mode} exited (${code}) after ${got} bytes`)));
  });
  if (settled) {
    await ready;
    // Let the tap's observer finish loading (the process goes idle), as it has for a host's
    // later requests; the direct server is idle once it said ready.
    if (mode === 'direct') await sleep(100);
    else await untilIdle(child.pid);
    asked = performance.now();
    child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big"}}\n');
  }
  await received;
  const last = performance.now();
  if (got !== FRAME) throw new Error(`${mode}: ${got} bytes, wanted ${FRAME}`);
  if (mem) {
    await untilIdle(child.pid);
    mem.read();
  }
  await finish(child);
  return {
    firstToLastMs: last - first,
    spawnToLastMs: settled ? last - asked : last - t0,
    peakMiB: mem ? mem.hwmKiB / 1024 : null,
    nativePeakMiB: mem?.nativeKiB ? mem.nativeKiB / 1024 : null,
    hostEnd,
  };
}

// 2: request, answer, next request.
async function latencyOnce(mode, messages, warmup = 200) {
  const child = start(mode, nodeServer('echo'));
  const mem = mode.startsWith('tap') ? watchMemory(child, servers, { poll: false }) : null;
  let pending = '';
  let waiter = null;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    pending += d;
    if (waiter && pending.includes('\n')) {
      const w = waiter;
      waiter = null;
      w();
    }
  });
  const ask = async (id) => {
    const answered = new Promise((resolve) => {
      waiter = resolve;
    });
    const t = performance.now();
    child.stdin.write(
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"message ${id}"}}}\n`,
    );
    await answered;
    const ms = performance.now() - t;
    const nl = pending.indexOf('\n');
    if (!pending.startsWith(`{"jsonrpc":"2.0","id":${id},`))
      throw new Error(`bad answer ${pending}`);
    pending = pending.slice(nl + 1);
    return ms;
  };
  const firstMs = await ask(0);
  await sleep(1000);
  const idleRssMiB = mem ? kib(status(child.pid), 'VmRSS') / 1024 : null;
  for (let i = 1; i <= warmup; i++) await ask(i);
  const rtt = [];
  for (let i = 0; i < messages; i++) rtt.push(await ask(warmup + 1 + i));
  mem?.read();
  await finish(child);
  return {
    firstMs,
    p50: pctl(rtt, 50),
    p99: pctl(rtt, 99),
    max: Math.max(...rtt),
    idleRssMiB,
    peakMiB: mem ? mem.hwmKiB / 1024 : null,
  };
}

// 3: spawn to the first byte.
const SH_READY = ['sh', '-c', 'echo \'{"jsonrpc":"2.0","method":"ready"}\'; exec cat >/dev/null'];
async function startupOnce(mode, server, env = ENV) {
  const t0 = performance.now();
  const child = start(mode, server, env);
  if (mode !== 'direct') watchMemory(child, servers); // notes the server, for the clean-up
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    child.once('exit', (code) => reject(new Error(`${mode} exited (${code}) before a byte`)));
  });
  const ms = performance.now() - t0;
  await finish(child);
  return ms;
}

function cleanUp() {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  for (const pid of servers) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes(ROLES) || cmdline.includes('exec cat')) process.kill(pid, 'SIGKILL');
    } catch {}
  }
  if (TMP) rmSync(TMP, { recursive: true, force: true });
}

async function bench() {
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(RELAY) || !existsSync(path.join(ROOT, 'dist', 'electron', 'tap', 'main.js'))) {
    console.log('\ntap cost: dist/electron/tap/ is not built (npm run build); skipped');
    return;
  }
  TMP = mkdtempSync(path.join(tmpdir(), 'pipescope-tap-cost-'));
  // The tap's flight recorder writes a file when its server exits: keep them out of ~/.pipescope.
  ENV = { ...process.env, PIPESCOPE_TRACE_DIR: TMP };
  process.on('exit', cleanUp);
  for (const sig of ['SIGINT', 'SIGTERM'])
    process.on(sig, () => {
      cleanUp();
      process.exit(130);
    });
  const t0 = performance.now();
  const TWO = ['direct', 'tap'];
  FLOOR = buildFloor();
  const MODES = [
    'direct',
    ...(FLOOR ? ['floor', 'floor-copy'] : []),
    'pipe',
    'relay',
    'stub',
    'native',
    'tap-node',
    'tap',
  ];
  const lap = (() => {
    let at = performance.now();
    const laps = [];
    return (name) => {
      if (!name) return laps.join(', ');
      const now = performance.now();
      laps.push(`${name} ${((now - at) / 1000).toFixed(1)} s`);
      at = now;
    };
  })();

  // At spawn too, the bare relay beside the tap: what any relay costs as a server starts.
  const tp = Object.fromEntries(['direct', ...(FLOOR ? ['floor'] : []), 'tap'].map((m) => [m, []]));
  const tpSettled = Object.fromEntries(MODES.map((m) => [m, []]));
  const BUDGET_MODES = new Set(['direct', 'floor', 'floor-copy', 'tap']);
  for (let i = 0; i < Math.max(opts.pairs, opts.runs); i++) {
    if (i < opts.pairs) for (const mode in tp) tp[mode].push(await throughputOnce(mode));
    for (const mode of MODES)
      if (i < (BUDGET_MODES.has(mode) ? opts.pairs : opts.runs))
        tpSettled[mode].push(await throughputOnce(mode, { settled: true }));
  }
  const stall = await throughputOnce('tap', { settled: true, stallMs: 2000 });
  lap('throughput');
  const lat = {};
  // The latency rows add the tap without its threads giving way, for the difference it makes.
  const LAT_MODES = [...MODES.slice(0, -1), 'tap-noyield', 'tap'];
  for (const mode of LAT_MODES) lat[mode] = await latencyOnce(mode, opts.messages);
  lap('latency');
  // The tap as `tap install` writes it where the native relay runs: that relay in front.
  const { relayBinaryUnavailable } = await import(
    path.join(ROOT, 'dist', 'electron', 'native-binary.js')
  );
  const STARTS = relayBinaryUnavailable(FRONT) === null ? [...TWO, 'tap-front'] : TWO;
  const st = Object.fromEntries(STARTS.map((m) => [m, []]));
  const stSh = Object.fromEntries(STARTS.map((m) => [m, []]));
  // NODE_EXTRA_CA_CERTS makes every Node process parse the file at start (~45 ms here): the
  // tap's own Node then pays it too, but behind the relay in front. Measured both ways where
  // it is set.
  const noCa = process.env.NODE_EXTRA_CA_CERTS ? { ...ENV, NODE_EXTRA_CA_CERTS: '' } : null;
  const stShNoCa = Object.fromEntries(STARTS.map((m) => [m, []]));
  for (let i = 0; i < opts.starts; i++)
    for (const mode of STARTS) {
      st[mode].push(await startupOnce(mode, nodeServer('ready')));
      if (i % 2 === 0) stSh[mode].push(await startupOnce(mode, SH_READY));
      if (i % 2 === 0 && noCa) stShNoCa[mode].push(await startupOnce(mode, SH_READY, noCa));
    }
  lap('start-up');
  const bigAsk = nodeServer('big-ask');
  const pySettled = ['direct', 'tap', ...(FLOOR ? ['floor'] : [])];
  const py = pythonHost(
    {
      frame: FRAME,
      runs: opts.runs,
      pairs: opts.pairs,
      messages: opts.messages,
      big: { direct: nodeServer('big'), tap: command('tap', nodeServer('big')) },
      settled: Object.fromEntries(pySettled.map((m) => [m, command(m, bigAsk)])),
      echo: { direct: nodeServer('echo'), tap: command('tap', nodeServer('echo')) },
    },
    ENV,
  );
  lap('python host');

  report({
    opts,
    floor: FLOOR !== null,
    modes: { TWO, MODES, LAT_MODES, STARTS },
    tp,
    tpSettled,
    stall,
    lat,
    st,
    stSh,
    stShNoCa,
    noCa: noCa !== null,
    py,
  });
  console.log(`\ntap cost total ${((performance.now() - t0) / 1000).toFixed(1)} s (${lap()})`);
}

await bench();
