/**
 * What `pipescope tap` costs a host: `node tap-cost.mjs [--runs N] [--pairs N] [--messages N]
 * [--starts N] [--quick]` (after `npm run build`). Every figure is the tap against the same server spawned
 * directly, measured in the same run, interleaved. `tap` is the tap as a host runs it (on Linux
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
 *    (`subprocess.PIPE`: real pipes), when python3 is there.
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
 * The same file is the servers (`--serve big|big-ask|echo|ready`) and the bare relays
 * (`--relay-only|--relay-stub|--relay-pipe|--relay-native -- <command>`).
 *
 * On a shared machine the figures move with its load: run it alone, or in a cgroup of its own.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker } from 'node:worker_threads';

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'pipescope.js');
const RELAY = path.join(ROOT, 'dist', 'electron', 'tap', 'relay.js');
const NATIVE = path.join(ROOT, 'dist', 'electron', 'tap', 'native-relay.js');
/** The native relay, which `tap install` puts in front of the tap's Node where it can run. */
const FRONT = path.join(ROOT, 'dist', 'electron', 'tap', 'pipescope-relay');
const MiB = 1024 * 1024;
const FRAME = 64 * MiB; // bytes on the wire, newline included
const READY = '{"jsonrpc":"2.0","method":"ready"}\n';

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

const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const pctl = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
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
  if (mode === 'relay') return [process.execPath, SELF, '--relay-only', '--', ...server];
  if (mode === 'stub') return [process.execPath, SELF, '--relay-stub', '--', ...server];
  if (mode === 'pipe') return [process.execPath, SELF, '--relay-pipe', '--', ...server];
  if (mode === 'native') return [process.execPath, SELF, '--relay-native', '--', ...server];
  if (mode === 'floor') return [FLOOR, '--', ...server];
  if (mode === 'floor-copy') return [FLOOR, '--copy', '--', ...server];
  // As `tap install` writes it on Linux: the relay starts the tap's Node (relay.c exec_node).
  if (mode === 'tap-front')
    return [FRONT, 'node', process.execPath, BIN, 'tap', '--no-publish', '--', ...server];
  return [process.execPath, BIN, 'tap', '--no-publish', '--', ...server];
}
const nodeServer = (kind) => [process.execPath, SELF, '--serve', kind];

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

function status(pid) {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
}
const kib = (text, field) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text ?? '')?.[1] ?? Number.NaN);

/** What the child's stdout is: `socket:[…]` (Node's spawn makes socketpairs) or `pipe:[…]`. */
function endKind(pid) {
  try {
    return readlinkSync(`/proc/${pid}/fd/1`).split(':')[0];
  } catch {
    return '?';
  }
}

/** CPU ticks the process has used (utime + stime). */
function ticks(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** The tap's children (its server), so they can be killed if the tap itself is. */
function noteServers(pid) {
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`))
      for (const c of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' '))
        if (c.trim()) servers.add(Number(c));
  } catch {}
}

/** Polls the tap's VmHWM until it exits (VmHWM is the kernel's own peak, so polling only has
 *  to come late enough). `poll: false`: read only when asked (`read()`), for the latency runs,
 *  where a 25 ms poll in this process (the host) put its own 0.5 ms on the p99 of any path. */
function watchMemory(child, { poll = true } = {}) {
  const pid = child.pid;
  const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  // Empty while the relay in front (tap-front) execs Node in that pid.
  if (cmdline !== '' && !/pipescope\.js|--relay-(only|stub|pipe|native)/.test(cmdline))
    throw new Error(`pid ${pid} is not the tap: ${cmdline}`);
  // The native relay is a process of its own, watched apart: a burst's copies wait there in
  // pipes (the server's own pages, kernel memory that no RSS shows), past them in its ring.
  const w = { hwmKiB: 0, nativeKiB: null };
  w.read = () => {
    const s = status(pid);
    const hwm = kib(s, 'VmHWM'); // absent once the tap is a zombie
    if (Number.isFinite(hwm)) w.hwmKiB = Math.max(w.hwmKiB, hwm);
    noteServers(pid);
    for (const c of servers) {
      const cs = status(c);
      if (!/^Name:\s+pipescope-rela/m.test(cs)) continue;
      const n = kib(cs, 'VmHWM');
      if (Number.isFinite(n)) w.nativeKiB = Math.max(w.nativeKiB ?? 0, n);
    }
  };
  w.read();
  if (!poll) return w;
  const timer = setInterval(w.read, 25);
  child.once('exit', () => clearInterval(timer));
  return w;
}

/** Waits until the process has used no CPU for 100 ms (the observer is done with what it got). */
async function untilIdle(pid, maxMs = 3000) {
  const t0 = performance.now();
  let last = ticks(pid);
  while (performance.now() - t0 < maxMs) {
    await sleep(100);
    const now = ticks(pid);
    if (now === null || now === last) return;
    last = now;
  }
}

// 1 and 4: one 64 MiB line, read by this process.
async function throughputOnce(mode, { settled = false, stallMs = 0 } = {}) {
  const t0 = performance.now();
  const child = start(mode, nodeServer(settled ? 'big-ask' : 'big'));
  const hostEnd = endKind(child.pid);
  const mem = mode === 'direct' || mode.startsWith('floor') ? null : watchMemory(child);
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
  const mem = mode.startsWith('tap') ? watchMemory(child, { poll: false }) : null;
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
  if (mode !== 'direct') watchMemory(child); // notes the server, for the clean-up
  await new Promise((resolve, reject) => {
    child.stdout.once('data', resolve);
    child.once('exit', (code) => reject(new Error(`${mode} exited (${code}) before a byte`)));
  });
  const ms = performance.now() - t0;
  await finish(child);
  return ms;
}

// The Python host: real pipes on the host's side (subprocess.PIPE).
const PY_HOST = String.raw`
import json, os, subprocess, sys, time
cfg = json.loads(sys.argv[1])
FRAME = cfg['frame']
procs = []

def popen(cmd):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, bufsize=0)
    procs.append(p)
    return p

def end(p):
    p.stdin.close()
    try:
        p.wait(timeout=8)
    except subprocess.TimeoutExpired:
        p.kill(); p.wait()

def host_end(p):
    return os.readlink('/proc/self/fd/%d' % p.stdout.fileno()).split(':')[0]

def throughput(cmd):
    buf = memoryview(bytearray(1 << 20))
    t0 = time.perf_counter()
    p = popen(cmd)
    fd = p.stdout.fileno()
    got, first = 0, None
    while got < FRAME:
        k = os.readv(fd, [buf])
        if k == 0:
            break
        if first is None:
            first = time.perf_counter()
        got += k
    last = time.perf_counter()
    kind = host_end(p)
    end(p)
    if got != FRAME:
        raise SystemExit('got %d bytes' % got)
    return {'firstToLastMs': (last - first) * 1e3, 'spawnToLastMs': (last - t0) * 1e3, 'hostEnd': kind}

def latency(cmd, n, warm=200):
    p = popen(cmd)
    fin, fout = p.stdin.fileno(), p.stdout.fileno()
    pending = b''
    def ask(i):
        nonlocal pending
        msg = ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"message %d"}}}\n' % (i, i)).encode()
        t = time.perf_counter()
        os.write(fin, msg)
        while b'\n' not in pending:
            pending += os.read(fout, 65536)
        ms = (time.perf_counter() - t) * 1e3
        pending = pending[pending.index(b'\n') + 1:]
        return ms
    ask(0)
    time.sleep(1)
    for i in range(1, warm + 1):
        ask(i)
    rtt = sorted(ask(warm + 1 + i) for i in range(n))
    end(p)
    pick = lambda q: rtt[min(len(rtt) - 1, -(-q * len(rtt) // 100) - 1)]
    return {'p50': pick(50), 'p99': pick(99), 'max': rtt[-1]}

try:
    out = {'throughput': {'direct': [], 'tap': []}, 'latency': {}}
    for _ in range(cfg['runs']):
        for mode in ('direct', 'tap'):
            out['throughput'][mode].append(throughput(cfg['big'][mode]))
    for mode in ('direct', 'tap'):
        out['latency'][mode] = latency(cfg['echo'][mode], cfg['messages'])
    print(json.dumps(out))
finally:
    for p in procs:
        if p.poll() is None:
            p.kill()
`;

function pythonHost(opts) {
  const check = spawnSync('python3', ['-c', 'import os; os.readv'], { stdio: 'ignore' });
  if (check.status !== 0) return null;
  const file = path.join(TMP, 'host.py');
  writeFileSync(file, PY_HOST);
  const cfg = {
    frame: FRAME,
    runs: opts.runs,
    messages: opts.messages,
    big: { direct: nodeServer('big'), tap: command('tap', nodeServer('big')) },
    echo: { direct: nodeServer('echo'), tap: command('tap', nodeServer('echo')) },
  };
  const r = spawnSync('python3', [file, JSON.stringify(cfg)], {
    env: ENV,
    encoding: 'utf8',
    timeout: 60_000,
    killSignal: 'SIGKILL',
  });
  if (r.status !== 0) {
    console.log(
      `python host failed (${r.status ?? r.signal}): ${r.stderr.trim().split('\n').pop()}`,
    );
    return null;
  }
  return JSON.parse(r.stdout);
}

function table(head, rows) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cols) =>
    cols.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

function cleanUp() {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
  for (const pid of servers) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes(SELF) || cmdline.includes('exec cat')) process.kill(pid, 'SIGKILL');
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

  const tp = { direct: [], tap: [] };
  const tpSettled = Object.fromEntries(MODES.map((m) => [m, []]));
  const BUDGET_MODES = new Set(['direct', 'floor', 'floor-copy', 'tap']);
  for (let i = 0; i < Math.max(opts.pairs, opts.runs); i++) {
    if (i < opts.pairs) for (const mode of TWO) tp[mode].push(await throughputOnce(mode));
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
  const py = pythonHost(opts);
  lap('python host');

  console.log(
    `\npipescope tap cost (node ${process.version}): direct, through \`pipescope tap --no-publish\`, ` +
      'through its Relay alone (relay: no observer thread; stub: an observer thread that only ' +
      'acknowledges the copies), and through a bare Node relay (pipe: `stdout.pipe()`, no ' +
      'copies); same run, interleaved. ' +
      `The host's end, from /proc: Node spawn = ${tp.direct[0].hostEnd}` +
      `${py ? `, Python subprocess = ${py.throughput.direct[0].hostEnd}` : ''}`,
  );
  const med = (runs, mode, k) => median((runs[mode] ?? []).map((r) => r[k]));
  const tRow = (label, runs, mode) => {
    const d = (k) => med(runs, 'direct', k);
    const m = (k) => med(runs, mode, k);
    return [
      `${label}, ${mode}`,
      String(runs[mode].length),
      f(m('firstToLastMs')),
      mode === 'direct' ? '1.00' : f(m('firstToLastMs') / d('firstToLastMs'), 2),
      f(m('spawnToLastMs')),
      mode === 'direct' ? '1.00' : f(m('spawnToLastMs') / d('spawnToLastMs'), 2),
    ];
  };
  console.log('\n1 x 64 MiB line to the host (medians)');
  table(
    ['host end, when, path', 'n', 'first→last ms', '×direct', 'ask→last ms', '×direct'],
    [
      ...TWO.map((m) => tRow('socketpair, at spawn', tp, m)),
      ...MODES.map((m) => tRow('socketpair, settled', tpSettled, m)),
      ...(py ? TWO.map((m) => tRow('pipe, at spawn', py.throughput, m)) : []),
    ],
  );
  console.log('(ask→last: from spawn at spawn, from the request when settled)');

  console.log(`\nround trip of one small request (${opts.messages} after a warm-up, ms)`);
  const lRow = (label, l, mode) => [
    `${label}, ${mode}`,
    f(l[mode].p50, 3),
    mode === 'direct' ? '' : `+${f(l[mode].p50 - l.direct.p50, 3)}`,
    f(l[mode].p99, 3),
    mode === 'direct' ? '' : `+${f(l[mode].p99 - l.direct.p99, 3)}`,
    f(l[mode].max, 2),
  ];
  table(
    ['host end, path', 'p50', 'added', 'p99', 'added', 'max'],
    [
      ...LAT_MODES.map((m) => lRow('socketpair', lat, m)),
      ...(py ? TWO.map((m) => lRow('pipe', py.latency, m)) : []),
    ],
  );
  console.log(
    'first answer (server start-up included): ' +
      `${LAT_MODES.map((m) => `${m} ${f(lat[m].firstMs)}`).join(', ')} ms`,
  );

  console.log(
    `\nstart-up, spawn to the server's first byte (${opts.starts} runs each, ` +
      `${stSh.tap.length} with sh, ms)`,
  );
  const sRow = (label, runs, mode) => [
    `${label}, ${mode}`,
    f(median(runs[mode])),
    mode === 'direct' ? '' : `+${f(median(runs[mode]) - median(runs.direct))}`,
    f(Math.min(...runs[mode])),
    f(Math.max(...runs[mode])),
  ];
  table(
    ['server, path', 'median', 'added', 'min', 'max'],
    [
      ...STARTS.map((m) => sRow('node', st, m)),
      ...STARTS.map((m) => sRow('sh', stSh, m)),
      ...(noCa ? STARTS.map((m) => sRow('sh, no CA file', stShNoCa, m)) : []),
    ],
  );
  if (STARTS.includes('tap-front'))
    console.log(
      '(tap-front: as `tap install` writes it here, `pipescope-relay node <node> <bin> tap ...`)',
    );
  if (noCa)
    console.log(
      '(this machine sets NODE_EXTRA_CA_CERTS, which every Node process parses at start; ' +
        '"no CA file": the same with it empty)',
    );

  const peak = median(tpSettled.tap.map((r) => r.peakMiB));
  const relayPeak = median(tpSettled.relay.map((r) => r.peakMiB));
  const nativePeaks = tpSettled.tap.map((r) => r.nativePeakMiB).filter((x) => x !== null);
  console.log(
    `\nthe tap process's peak RSS (VmHWM, MiB): idle after start-up ${f(lat.tap.idleRssMiB)}; ` +
      `${opts.messages} small round trips ${f(lat.tap.peakMiB)}; a 64 MiB line ${f(peak)} ` +
      `(relay alone ${f(relayPeak)}); a 64 MiB line, the host not reading for 2 s ${f(stall.peakMiB)}` +
      (nativePeaks.length
        ? `; its native relay, a process of its own, for a 64 MiB line ${f(median(nativePeaks))} ` +
          '(the copies it holds are pipe buffers, not in its RSS)'
        : ''),
  );

  const verdict = (ok, text) => console.log(`${ok ? 'within' : 'OVER  '}  ${text}`);
  console.log('\nbudgets (issue 20)');
  const ratio = (runs) => med(runs, 'tap', 'firstToLastMs') / med(runs, 'direct', 'firstToLastMs');
  const ratios = [
    ['socketpair at spawn', ratio(tp)],
    ['socketpair settled', ratio(tpSettled)],
    ...(py ? [['pipe at spawn', ratio(py.throughput)]] : []),
  ];
  verdict(
    ratios.every(([, r]) => r <= 1.1),
    `throughput, 64 MiB line (budget 1.1× direct): ${ratios.map(([h, r]) => `${f(r, 2)}× ${h}`).join(', ')}`,
  );
  // Each tap run against the direct run just before it: how far one pair strays from the median.
  const spread = (runs) => {
    const r = runs.tap
      .map((x, i) => x.firstToLastMs / runs.direct[i].firstToLastMs)
      .sort((a, b) => a - b);
    return `${f(r[0], 2)}–${f(r[r.length - 1], 2)}× over ${r.length} pairs`;
  };
  console.log(
    `        each pair (tap ÷ the direct run before it): at spawn ${spread(tp)}, settled ` +
      spread(tpSettled),
  );
  const series = (mode) => tpSettled[mode].map((r) => f(r.firstToLastMs)).join(' ');
  for (const mode of ['direct', ...(FLOOR ? ['floor'] : []), 'tap'])
    console.log(`        settled ${mode}, first→last ms in run order: ${series(mode)}`);
  if (FLOOR) {
    const floor = (mode) =>
      med(tpSettled, mode, 'firstToLastMs') / med(tpSettled, 'direct', 'firstToLastMs');
    console.log(
      `        the floor on this machine, socketpair settled: ${f(floor('floor'), 2)}× a bare ` +
        `splice relay, ${f(floor('floor-copy'), 2)}× the same with one thread reading a copy of ` +
        'every byte (floor-relay.c)',
    );
  }
  const added = [['socketpair', lat], ...(py ? [['pipe', py.latency]] : [])].map(([h, l]) => [
    h,
    l.tap.p50 - l.direct.p50,
    l.tap.p99 - l.direct.p99,
  ]);
  verdict(
    added.every(([, a50, a99]) => a50 <= 0.1 && a99 <= 1),
    `added latency (budget p50 0.1 ms, p99 1 ms): ${added
      .map(([h, a50, a99]) => `p50 +${f(a50, 3)} / p99 +${f(a99, 3)} ms ${h}`)
      .join(', ')}`,
  );
  const grew = stall.peakMiB - peak;
  verdict(
    grew <= 16,
    `memory bounded: peak ${f(peak)} MiB for a 64 MiB line, ${f(stall.peakMiB)} MiB with a 2 s ` +
      `stall (${grew >= 0 ? '+' : ''}${f(grew)} MiB; a stall must not grow it)`,
  );
  // The budget is what a host gets from the command `tap install` writes.
  const installed = STARTS.at(-1);
  const addedNode = median(st[installed]) - median(st.direct);
  const addedSh = median(stSh[installed]) - median(stSh.direct);
  const addedNoCa = noCa ? median(stShNoCa[installed]) - median(stShNoCa.direct) : null;
  const bare =
    installed === 'tap'
      ? ''
      : `; \`node bin/pipescope.js tap\` by hand: +${f(median(stSh.tap) - median(stSh.direct))} ms with sh`;
  verdict(
    addedNode <= 100 && addedSh <= 100,
    `start-up (budget +100 ms, ${installed}): +${f(addedNode)} ms with a node server, +${f(addedSh)} ms with sh` +
      (addedNoCa === null ? '' : `; +${f(addedNoCa)} ms with sh and no NODE_EXTRA_CA_CERTS`) +
      bare,
  );
  console.log(`\ntap cost total ${((performance.now() - t0) / 1000).toFixed(1)} s (${lap()})`);
}

// ---- the servers and the observer-less relay ----

async function serve(kind) {
  process.stdout.on('error', () => process.exit(1));
  process.stdin.on('end', () => process.exit(0));
  if (kind === 'big' || kind === 'big-ask') {
    const { generateWorkload } = await import('./workloads.mjs');
    const data = generateWorkload(`1x${FRAME - 1}:ascii`);
    if (kind === 'big') process.stdout.write(data);
    else {
      process.stdout.write(READY);
      process.stdin.once('data', () => process.stdout.write(data));
    }
    process.stdin.resume();
  } else if (kind === 'ready') {
    process.stdout.write(READY);
    process.stdin.resume();
  } else if (kind === 'echo') {
    let pending = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (d) => {
      pending += d;
      for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) {
        const m = JSON.parse(pending.slice(0, i));
        pending = pending.slice(i + 1);
        process.stdout.write(
          `{"jsonrpc":"2.0","id":${m.id},"result":${JSON.stringify({ echo: m.params })}}\n`,
        );
      }
    });
  } else {
    process.stderr.write(`unknown server ${kind}\n`);
    process.exit(2);
  }
}

/** The tap's Relay with no observer attached (its tees copy as they do in the tap; the copies
 *  wait, bounded, for an observer that never comes), or with a stub observer: a worker thread
 *  that acknowledges every copy at once and does nothing else. */
async function relayOnly(argv, withStub) {
  const [cmd, ...args] = argv;
  const { Relay } = await import(RELAY);
  const t0 = performance.now();
  const relay = new Relay(cmd, args, process, () => performance.now() - t0);
  if (withStub) {
    const { port1, port2 } = new MessageChannel();
    const stub = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const ack = (to) => (m) => {
         if (m?.data) to.postMessage({ type: 'ack', bytes: m.data.byteLength });
       };
       parentPort.on('message', ack(parentPort));
       workerData.port.on('message', ack(workerData.port));`,
      { eval: true, workerData: { port: port2 }, transferList: [port2] },
    );
    // As main.ts wires the observer: stdin copies to the worker, stdout copies to a port.
    relay.stdinTee.attach(stub);
    stub.on('message', (m) => relay.stdinTee.ack(m.bytes));
    port1.on('message', (m) => relay.onWorkerMessage(m));
    relay.stdoutTee.attach(port1);
    port1.unref();
    stub.unref();
  }
  const end = await relay.done;
  process.exit(end.exit?.code ?? 1);
}

/** The tap's native relay (splice) and what reads its copies, with no observer to take them
 *  (they wait, bounded, then are counted as a gap): what the relay costs by itself. */
async function relayNative(argv) {
  const [cmd, ...args] = argv;
  const { NativeRelay, nativeRelayUnavailable } = await import(NATIVE);
  const why = nativeRelayUnavailable();
  if (why) {
    process.stderr.write(`native relay: ${why}\n`);
    process.exit(3);
  }
  const t0 = performance.now();
  const relay = new NativeRelay(cmd, args, () => performance.now() - t0);
  const end = await relay.done;
  process.exit(end.exit?.code ?? 1);
}

/** The floor for any relay in Node: stream `pipe()` both ways, nothing else. */
function relayPipe([cmd, ...args]) {
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  process.stdin.pipe(child.stdin);
  child.stdout.pipe(process.stdout);
  child.stdin.on('error', () => {});
  child.on('close', (code) => process.exit(code ?? 1));
}

// Only this process's own first argument chooses (the relays' argv holds a server's `--serve`).
const role = process.argv[2];
if (role === '--serve') await serve(process.argv[3]);
else if (role === '--relay-pipe') relayPipe(process.argv.slice(4));
else if (role === '--relay-native') await relayNative(process.argv.slice(4));
else if (role === '--relay-only' || role === '--relay-stub')
  await relayOnly(process.argv.slice(4), role === '--relay-stub');
else await bench();
