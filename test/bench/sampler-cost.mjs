/**
 * What process evidence costs: `node sampler-cost.mjs [--seconds N]`.
 *
 * 1. CPU of the sampler per session: a real server runs N seconds (default 5) in each cadence —
 *    idle (sampled every 500 ms) and owing an answer with a silent stdout (every 100 ms) — for a
 *    Node server (7 threads or more) and a Python one (1 thread). Printed: the sampler's own
 *    time per second of wall clock (its reads are synchronous, so this is its CPU), as % of a
 *    core, and this process's whole CPU with sampling on against off over the same scenario.
 * 2. The drain with the sampler on: one 64 MiB frame through a whole Session (worker drain,
 *    dispatcher, store), sampling on against off, interleaved: the ratio of the medians.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const { Session } = await import('../../dist/electron/engine/session/session.js');
const secondsArg = process.argv.indexOf('--seconds');
const SECONDS = secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 5;
const GENERATOR = fileURLToPath(new URL('./generator.mjs', import.meta.url));

const NODE_SERVER = [
  '-e',
  // Answers the handshake; `hold` is never answered (a silent stdout, an answer owed).
  `let b='';process.stdin.on('data',d=>{b+=d;let i;while((i=b.indexOf('\\n'))>=0){const m=JSON.parse(b.slice(0,i));b=b.slice(i+1);
   if(m.method==='initialize')process.stdout.write(JSON.stringify({jsonrpc:'2.0',id:m.id,result:{protocolVersion:'2025-06-18',capabilities:{},serverInfo:{name:'n',version:'1'}}})+'\\n');}});`,
];
const PY_SERVER = [
  '-c',
  [
    'import sys, json',
    'for line in sys.stdin:',
    '    m = json.loads(line)',
    "    if m.get('method') == 'initialize':",
    "        print(json.dumps({'jsonrpc': '2.0', 'id': m['id'], 'result': {'protocolVersion': '2025-06-18', 'capabilities': {}, 'serverInfo': {'name': 'p', 'version': '1'}}}), flush=True)",
  ].join('\n'),
];

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

async function run(command, args, { sampling, owed }) {
  const s = new Session({ command, args, processSampling: sampling, requestTimeoutMs: 0 });
  await s.whenStarted();
  await s.send('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'b', version: '1' },
  }).done;
  if (owed) s.send('hold', {}); // never answered: the fast cadence
  await sleep(300);
  const cpu0 = process.cpuUsage();
  const spent0 = s.evidence.spentMs;
  const samples0 = s.processInfo().samples;
  const t0 = performance.now();
  await sleep(SECONDS * 1000);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const result = {
    wallMs: wall,
    cpuMs: (cpu.user + cpu.system) / 1000,
    samplerMs: s.evidence.spentMs - spent0,
    samples: s.processInfo().samples - samples0,
    threads: s.latestProcess()?.processes[0]?.threadCount ?? null,
  };
  await s.stop();
  return result;
}

function pct(ms, wall) {
  return `${((ms / wall) * 100).toFixed(2)} %`;
}

async function costTable() {
  let python = true;
  try {
    execFileSync('python3', ['-c', 'pass'], { stdio: 'ignore' });
  } catch {
    python = false;
  }
  const servers = [
    ['node', process.execPath, NODE_SERVER],
    ...(python ? [['python', 'python3', PY_SERVER]] : []),
  ];
  console.log(`\nprocess sampler cost (${SECONDS} s per cell; % of one core)`);
  console.log(
    'server  cadence       threads  samples/s  sampler CPU  process CPU on  off   (on-off)',
  );
  for (const [name, command, args] of servers) {
    for (const owed of [false, true]) {
      const on = await run(command, args, { sampling: true, owed });
      const off = await run(command, args, { sampling: false, owed });
      const cadence = owed ? 'owed 100 ms' : 'idle 500 ms';
      console.log(
        `${name.padEnd(7)} ${cadence.padEnd(13)} ${String(on.threads).padStart(7)}  ` +
          `${(on.samples / (on.wallMs / 1000)).toFixed(1).padStart(9)}  ${pct(on.samplerMs, on.wallMs).padStart(11)}  ` +
          `${pct(on.cpuMs, on.wallMs).padStart(14)} ${pct(off.cpuMs, off.wallMs).padStart(7)}  ${pct(on.cpuMs - off.cpuMs, on.wallMs).padStart(8)}`,
      );
    }
  }
}

async function drainOnce(sampling) {
  const stamp = `/tmp/pipescope-sampler-bench-${process.pid}`;
  const s = new Session({
    command: process.execPath,
    args: [GENERATOR, '1x67108864:ascii', stamp],
    processSampling: sampling,
    maxFrameBytes: 128 * 1024 * 1024,
  });
  const t0 = performance.now();
  await s.whenStarted();
  await new Promise((resolve) => {
    const done = () => resolve();
    s.once('exit', done);
    const timer = setTimeout(done, 60_000);
    timer.unref();
  });
  while (s.liveMetrics().frames < 1 && performance.now() - t0 < 60_000) await sleep(5);
  const ms = performance.now() - t0;
  await s.stop();
  return ms;
}

async function drainTable(runs = 7) {
  const on = [];
  const off = [];
  for (let i = 0; i < runs; i++) {
    off.push(await drainOnce(false));
    on.push(await drainOnce(true));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `\none 64 MiB frame through a Session (spawn to frame, ${runs} runs, medians): sampling off ` +
      `${median(off).toFixed(1)} ms, on ${median(on).toFixed(1)} ms, on/off ${(median(on) / median(off)).toFixed(3)}`,
  );
}

await costTable();
await drainTable();
