/**
 * Pipescope read-path benchmark: `node test/bench/bench.mjs [--runs N] [--quick] [--out file]
 *   [--readers a,b] [--workloads spec,spec] [--cell-budget-s S]` (after `npm run build`).
 *
 * Every measurement is a fresh `node reader.mjs <reader> <workload>` process that spawns the
 * generator and reads its stdout through a real pipe. Runs are interleaved (round-robin over
 * every workload and reader) so drift on the machine hits all readers alike. See README.md.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, platform, release } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describeWorkload, parseWorkload } from './workloads.mjs';

const READER = fileURLToPath(new URL('./reader.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MiB = 1024 * 1024;
const KiB = 1024;

const WORKLOADS = [
  `1x${8 * MiB}:ascii`,
  `1x${64 * MiB}:ascii`,
  '200000x200:ascii',
  `2000x${64 * KiB}:multibyte`,
];
const QUICK_WORKLOADS = [
  `1x${8 * MiB}:ascii`,
  `1x${16 * MiB}:ascii`, // still over the SDK's default 10 MiB cap
  '50000x200:ascii',
  `500x${64 * KiB}:multibyte`,
];

function parseArgs(argv) {
  const opts = { runs: 5, quick: false, out: null, readers: null, workloads: null, budgetS: 20 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--runs') opts.runs = Number(next());
    else if (a === '--quick') opts.quick = true;
    else if (a === '--out') opts.out = next();
    else if (a === '--readers') opts.readers = next().split(',');
    else if (a === '--workloads') opts.workloads = next().split(',');
    else if (a === '--cell-budget-s') opts.budgetS = Number(next());
    else throw new Error(`unknown option ${a}`);
  }
  if (opts.quick && !argv.includes('--runs')) opts.runs = 2;
  if (!Number.isInteger(opts.runs) || opts.runs < 1) throw new Error('--runs must be >= 1');
  return opts;
}

/** Whether this SDK's ReadBuffer has a max-buffer cap (1.2x+ exports its default). */
async function sdkCap() {
  const mod = await import('@modelcontextprotocol/sdk/shared/stdio.js');
  return typeof mod.STDIO_DEFAULT_MAX_BUFFER_SIZE === 'number'
    ? mod.STDIO_DEFAULT_MAX_BUFFER_SIZE
    : null;
}

function measure(reader, workload, timeoutMs) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [READER, reader, workload], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const elapsedMs = Date.now() - started;
      const line = out.trim().split('\n').pop();
      try {
        resolve({ ...JSON.parse(line), elapsedMs });
      } catch {
        const why = signal === 'SIGKILL' ? `timed out after ${timeoutMs} ms` : `exit ${code}`;
        const tail = err.trim().split('\n').slice(-3).join(' | ');
        resolve({ reader, workload, status: 'failed', error: `${why}: ${tail}`, elapsedMs });
      }
    });
  });
}

const median = (xs) => {
  const s = xs.filter((x) => typeof x === 'number').sort((a, b) => a - b);
  if (s.length === 0) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function summarize(cell) {
  const ok = cell.runs.filter((r) => r.status === 'ok');
  const failed = cell.runs.find((r) => r.status === 'failed');
  return {
    workload: cell.workload,
    reader: cell.reader,
    runs: cell.runs.length,
    ok: ok.length,
    status: failed ? 'FAILED' : 'ok',
    error: failed?.error ?? null,
    medianWallMs: median(ok.map((r) => r.wallMs)),
    medianSpawnToEndMs: median(cell.runs.map((r) => r.spawnToEndMs)),
    medianMaxRssMiB: median(cell.runs.map((r) => r.maxRssKiB / 1024)),
    medianOverBaselineMiB: median(cell.runs.map((r) => (r.maxRssKiB - r.baselineRssKiB) / 1024)),
  };
}

function fmt(x, digits = 0) {
  return x === null || x === undefined || Number.isNaN(x) ? '-' : x.toFixed(digits);
}

function printTable(summaries) {
  const rawWall = new Map(
    summaries.filter((s) => s.reader === 'raw').map((s) => [s.workload, s.medianWallMs]),
  );
  const head = ['workload', 'reader', 'n', 'ms', 'MiB/s', 'spawn→end', 'RSS MiB', '+base', '×raw'];
  const rows = summaries.map((s) => {
    const { streamBytes } = parseWorkload(s.workload);
    const raw = rawWall.get(s.workload);
    const ok = s.medianWallMs !== null && s.status === 'ok';
    return [
      describeWorkload(s.workload),
      s.reader,
      String(s.runs),
      ok ? fmt(s.medianWallMs, 1) : 'FAILED',
      ok ? fmt(streamBytes / MiB / (s.medianWallMs / 1000)) : '-',
      fmt(s.medianSpawnToEndMs),
      fmt(s.medianMaxRssMiB),
      fmt(s.medianOverBaselineMiB),
      ok && raw ? fmt(s.medianWallMs / raw, 2) : '-',
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cols) =>
    cols.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  let last = null;
  for (const [i, r] of rows.entries()) {
    if (last !== null && summaries[i].workload !== last) console.log('');
    last = summaries[i].workload;
    console.log(line(r));
  }
  const failures = summaries.filter((s) => s.status === 'FAILED');
  if (failures.length) console.log('');
  for (const f of failures)
    console.log(`FAILED ${f.reader} on ${describeWorkload(f.workload)}: ${f.error}`);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const workloads = opts.workloads ?? (opts.quick ? QUICK_WORKLOADS : WORKLOADS);
  for (const w of workloads) parseWorkload(w); // fail early on a bad spec
  const cap = await sdkCap();
  let readers = opts.readers ?? [
    'raw',
    'raw-keep',
    'raw-slab',
    'sdk',
    ...(cap !== null ? ['sdk-nocap'] : []),
    'framer',
    'framer-scan',
    'framer-noparse',
    'worker-raw',
    'engine',
  ];
  const sdkVersion = JSON.parse(
    readFileSync(`${ROOT}node_modules/@modelcontextprotocol/sdk/package.json`, 'utf8'),
  ).version;
  console.log(
    `pipescope bench: node ${process.version}, ${cpus().length} cpus (${cpus()[0]?.model ?? '?'}), ` +
      `SDK ${sdkVersion} (ReadBuffer cap: ${cap === null ? 'none' : `${cap / MiB} MiB`}), ` +
      `${opts.runs} runs, cell budget ${opts.budgetS} s`,
  );

  const cells = new Map();
  for (const w of workloads)
    for (const r of readers)
      cells.set(`${w}|${r}`, { workload: w, reader: r, runs: [], spentMs: 0 });
  const started = Date.now();
  for (let run = 0; run < opts.runs; run++) {
    for (const w of workloads) {
      for (const r of readers) {
        const cell = cells.get(`${w}|${r}`);
        if (!cell) continue;
        // A slow cell (the SDK at 64 MiB is quadratic) stops repeating once over its budget.
        if (run > 0 && cell.spentMs > opts.budgetS * 1000) continue;
        const result = await measure(r, w, 120_000);
        if (result.status === 'unavailable') {
          console.log(`${r}: not available (${result.error})`);
          readers = readers.filter((x) => x !== r);
          for (const key of [...cells.keys()]) if (key.endsWith(`|${r}`)) cells.delete(key);
          continue;
        }
        cell.runs.push(result);
        cell.spentMs += result.elapsedMs;
        process.stderr.write('.');
      }
    }
  }
  process.stderr.write('\n');
  const summaries = [...cells.values()].filter((c) => c.runs.length > 0).map(summarize);
  printTable(summaries);
  console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(1)} s`);

  // The main thread must stay responsive while a server floods (a separate process, so its
  // RSS and event loop are its own).
  const lag = spawnSync(
    process.execPath,
    [
      fileURLToPath(new URL('./event-loop.mjs', import.meta.url)),
      '--gib',
      opts.quick ? '0.25' : '1',
    ],
    { stdio: 'inherit', timeout: 300_000 },
  );
  if (lag.status !== 0) console.log(`event-loop benchmark failed (status ${lag.status})`);

  // What process evidence costs a session, and the drain with the sampler on against off.
  const sampler = spawnSync(
    process.execPath,
    [
      fileURLToPath(new URL('./sampler-cost.mjs', import.meta.url)),
      '--seconds',
      opts.quick ? '2' : '5',
    ],
    { stdio: 'inherit', timeout: 300_000 },
  );
  if (sampler.status !== 0) console.log(`sampler benchmark failed (status ${sampler.status})`);

  // What `pipescope tap` costs a host: throughput, latency, start-up and memory against the same
  // server spawned directly.
  const tap = spawnSync(
    process.execPath,
    [fileURLToPath(new URL('./tap-cost.mjs', import.meta.url)), ...(opts.quick ? ['--quick'] : [])],
    { stdio: 'inherit', timeout: 300_000 },
  );
  if (tap.status !== 0) console.log(`tap benchmark failed (status ${tap.status})`);

  if (opts.out) {
    const report = {
      format: 'pipescope-bench',
      version: 1,
      date: new Date().toISOString(),
      env: {
        node: process.version,
        platform: platform(),
        release: release(),
        cpus: cpus().length,
        sdk: sdkVersion,
        sdkCap: cap,
      },
      options: { ...opts, workloads },
      summaries,
      runs: [...cells.values()].flatMap((c) => c.runs),
    };
    writeFileSync(opts.out, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`results written to ${opts.out}`);
  }
}

main().catch((e) => {
  console.error(e.stack ?? String(e));
  process.exit(2);
});
