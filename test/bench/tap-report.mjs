/**
 * The tables and the budget verdicts of test/bench/tap-cost.mjs, from its measurements (medians
 * of interleaved runs; each ratio against `direct` of the same run), and the figures' helpers.
 */

export const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
export const pctl = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
export const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
/** A difference, with its sign: +0.081, -0.405. */
const signed = (x, d = 1) => `${x >= 0 ? '+' : ''}${f(x, d)}`;

function table(head, rows) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cols) =>
    cols.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

/** Prints what `r` holds (tap-cost.mjs's `bench()` says what each part is). */
export function report(r) {
  const { opts, floor, tp, tpSettled, stall, lat, st, stSh, stShNoCa, noCa, py } = r;
  const { TWO, MODES, LAT_MODES, STARTS } = r.modes;
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
      mode === 'direct' && Number.isFinite(d('spawnToLastMs'))
        ? '1.00'
        : f(m('spawnToLastMs') / d('spawnToLastMs'), 2),
    ];
  };
  console.log('\n1 x 64 MiB line to the host (medians)');
  table(
    ['host end, when, path', 'n', 'first→last ms', '×direct', 'ask→last ms', '×direct'],
    [
      ...Object.keys(tp).map((m) => tRow('socketpair, at spawn', tp, m)),
      ...MODES.map((m) => tRow('socketpair, settled', tpSettled, m)),
      ...(py ? TWO.map((m) => tRow('pipe, at spawn', py.throughput, m)) : []),
      ...(py ? Object.keys(py.settled).map((m) => tRow('pipe, settled', py.settled, m)) : []),
    ],
  );
  console.log('(ask→last: from spawn at spawn, from the request when settled; not timed "-")');

  console.log(`\nround trip of one small request (${opts.messages} after a warm-up, ms)`);
  const lRow = (label, l, mode) => [
    `${label}, ${mode}`,
    f(l[mode].p50, 3),
    mode === 'direct' ? '' : signed(l[mode].p50 - l.direct.p50, 3),
    f(l[mode].p99, 3),
    mode === 'direct' ? '' : signed(l[mode].p99 - l.direct.p99, 3),
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
    mode === 'direct' ? '' : signed(median(runs[mode]) - median(runs.direct)),
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
    ...(py
      ? [
          ['pipe at spawn', ratio(py.throughput)],
          ['pipe settled', ratio(py.settled)],
        ]
      : []),
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
      spread(tpSettled) +
      (py ? `; pipe settled ${spread(py.settled)}` : ''),
  );
  const series = (mode) => tpSettled[mode].map((r) => f(r.firstToLastMs)).join(' ');
  for (const mode of ['direct', ...(floor ? ['floor'] : []), 'tap'])
    console.log(`        settled ${mode}, first→last ms in run order: ${series(mode)}`);
  if (floor) {
    const floor = (mode, runs = tpSettled) =>
      med(runs, mode, 'firstToLastMs') / med(runs, 'direct', 'firstToLastMs');
    console.log(
      `        the floor on this machine, socketpair settled: ${f(floor('floor'), 2)}× a bare ` +
        `splice relay, ${f(floor('floor-copy'), 2)}× the same with one thread reading a copy of ` +
        'every byte (floor-relay.c)' +
        `; at spawn: ${f(floor('floor', tp), 2)}× the bare relay` +
        (py?.settled.floor
          ? `; pipe settled: ${f(floor('floor', py.settled), 2)}× the bare relay`
          : ''),
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
      .map(([h, a50, a99]) => `p50 ${signed(a50, 3)} / p99 ${signed(a99, 3)} ms ${h}`)
      .join(', ')}`,
  );
  const grew = stall.peakMiB - peak;
  verdict(
    grew <= 16,
    `memory bounded: peak ${f(peak)} MiB for a 64 MiB line, ${f(stall.peakMiB)} MiB with a 2 s ` +
      `stall (${signed(grew)} MiB; a stall must not grow it)`,
  );
  // The budget is what a host gets from the command `tap install` writes.
  const installed = STARTS.at(-1);
  const addedNode = median(st[installed]) - median(st.direct);
  const addedSh = median(stSh[installed]) - median(stSh.direct);
  const addedNoCa = noCa ? median(stShNoCa[installed]) - median(stShNoCa.direct) : null;
  const bare =
    installed === 'tap'
      ? ''
      : `; \`node bin/pipescope.js tap\` by hand: ${signed(median(stSh.tap) - median(stSh.direct))} ms with sh`;
  verdict(
    addedNode <= 100 && addedSh <= 100,
    `start-up (budget +100 ms, ${installed}): ${signed(addedNode)} ms with a node server, ${signed(addedSh)} ms with sh` +
      (addedNoCa === null ? '' : `; ${signed(addedNoCa)} ms with sh and no NODE_EXTRA_CA_CERTS`) +
      bare,
  );
}
