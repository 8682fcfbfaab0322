/**
 * The tap at the edges a review found, on real processes (this test is the host): a server
 * that logs more than the tee's bound, signals a Node process cannot die of, a host that closes
 * the tap's stderr, stderr still arriving at the exit, a child that keeps stdout open, a tap
 * killed outright, a server that closes its stdin, one that closes stdout and stderr and reads
 * on, and a listener at the socket that asks the tap to start a process.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ProbeReport } from '../../shared/probe-report.js';
import { CLI, runCli, waitFor } from './helpers.js';
import { TAP_RELAYS } from './tap-relays.js';

/** The relay the running suite uses (its environment). */
let relayEnv: Record<string, string> = {};

const running = new Set<ChildProcessWithoutNullStreams>();
afterEach(() => {
  for (const c of running) c.kill('SIGKILL');
  running.clear();
});

function tap(argv: string[], dir: string): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [CLI, 'tap', ...argv], {
    env: { ...process.env, PIPESCOPE_TAP_DIR: dir, PIPESCOPE_TRACE_DIR: dir, ...relayEnv },
  });
  running.add(child);
  return child;
}

const closed = (c: ChildProcessWithoutNullStreams): Promise<[number | null, string | null]> =>
  new Promise((r) => c.on('close', (code, signal) => r([code, signal])));

function collect(stream: NodeJS.ReadableStream): () => string {
  let text = '';
  stream.on('data', (d: Buffer) => {
    text = (text + d.toString('latin1')).slice(-256 * 1024);
  });
  return () => text;
}

/** Whether `pid` still runs: a zombie has ended (it waits for init to reap it, which on a
 *  loaded machine takes seconds, and kill(pid, 0) still succeeds on it). */
const alive = (pid: number): boolean => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
};

const tmp = (): string => mkdtempSync(path.join(tmpdir(), 'tap-edges-'));

describe.each(TAP_RELAYS)('tap ($name relay): edges', (relay) => {
  beforeAll(() => {
    relayEnv = relay.env;
  });

  it('a server that logs 70 MiB to stderr is still observed (stderr copies are acknowledged)', async () => {
    const dir = tmp();
    const trace = path.join(dir, 'noisy.jsonl');
    const server = [
      'const big = Buffer.alloc(1 << 20, 120); let n = 0;',
      "const more = () => { while (n < 70) { n++; if (!process.stderr.write(big)) return process.stderr.once('drain', more); }",
      "process.stdin.on('data', (d) => { for (const l of d.toString().split('\\n')) if (l) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(l).id, result: {} }) + '\\n'); }); };",
      'more();',
    ].join('\n');
    const c = tap(['--no-publish', '--trace', trace, '--', process.execPath, '-e', server], dir);
    c.stderr.resume();
    const out = collect(c.stdout);
    await new Promise((r) => setTimeout(r, 300));
    c.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n');
    await waitFor(() => out().includes('"id":1'), 30_000, 'the answer after 70 MiB of stderr');
    c.stdin.end();
    expect((await closed(c))[0]).toBe(0);
    const report = JSON.parse((await runCli(['report', '--json', trace])).stdout) as ProbeReport;
    // What came before the observer was up waited for it, up to the tee's 64 MiB: the rest of
    // stderr was relayed, not observed (said in stderr); stdout was observed all the same.
    expect(report.metrics.stderrBytes).toBeGreaterThan(60 * 1024 * 1024);
    expect(report.metrics.frames).toBe(1);
    expect(report.requests.find((q) => q.id === 1)?.status).toBe('completed');
  }, 60_000);

  it("a relative --trace goes to the traces folder, says where on stderr, and is the user's alone", async () => {
    const dir = tmp();
    const c = tap(['--no-publish', '--trace', 'rel.jsonl', '--', 'cat'], dir);
    const err = collect(c.stderr);
    c.stdout.resume();
    const file = path.join(dir, 'rel.jsonl');
    await waitFor(() => err().includes(`recording the session to ${file}`), 20_000, 'where');
    c.stdin.end();
    expect((await closed(c))[0]).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  }, 30_000);

  it('a server ended by SIGPIPE or SIGUSR1: the shell code, and never an inspector', async () => {
    for (const [sig, code] of [
      ['PIPE', 141],
      ['USR1', 138],
    ] as const) {
      const c = tap(['--no-publish', '--', 'sh', '-c', `kill -${sig} $$`], tmp());
      const err = collect(c.stderr);
      c.stdin.end();
      expect((await closed(c))[0]).toBe(code);
      expect(err()).not.toContain('Debugger');
    }
  }, 30_000);

  it('SIGUSR1 sent to the tap goes to the server; the tap opens no inspector', async () => {
    const c = tap(['--no-publish', '--', 'sleep', '30'], tmp());
    const err = collect(c.stderr);
    await new Promise((r) => setTimeout(r, 700));
    c.kill('SIGUSR1');
    const [code] = await closed(c);
    expect(code).toBe(138); // sleep died of SIGUSR1, and the tap says so as the shell would
    expect(err()).not.toContain('Debugger');
  }, 30_000);

  it('a host that closed the tap’s stderr: the server does not block on its own stderr', async () => {
    const c = tap(
      ['--no-publish', '--', 'sh', '-c', 'head -c 1000000 /dev/zero >&2; echo "{}"'],
      tmp(),
    );
    c.stderr.destroy();
    const out = collect(c.stdout);
    c.stdin.end();
    const [code] = await closed(c);
    expect(code).toBe(0);
    expect(out()).toBe('{}\n');
  }, 30_000);

  it("everything on the server's stderr reaches the host before the tap exits", async () => {
    const script = 'head -c 300000 /dev/zero | tr "\\0" a >&2; echo LAST-LINE >&2';
    const c = tap(['--no-publish', '--', 'sh', '-c', script], tmp());
    // A host that reads its server's log late: its reader is there, paused. (With no reader at
    // all, Node discards a child's unread output once the child exits, and the tap may well
    // exit first: the native relay hands the host all 300 KB at once, as a direct server does.)
    let err = '';
    c.stderr.on('data', (d: Buffer) => {
      err += d.toString('latin1');
    });
    c.stderr.pause();
    const ended = closed(c);
    c.stdin.end();
    await new Promise((r) => setTimeout(r, 1000));
    c.stderr.resume();
    await ended;
    expect(err.length).toBe(300_010);
    expect(err.endsWith('LAST-LINE\n')).toBe(true);
  }, 30_000);

  it('a child left holding stdout delays the exit the host sees by a bounded time only', async () => {
    const c = tap(['--no-publish', '--', 'sh', '-c', 'sleep 5 & echo hi'], tmp());
    const out = collect(c.stdout);
    c.stdin.end();
    const t0 = Date.now();
    expect((await closed(c))[0]).toBe(0);
    expect(Date.now() - t0).toBeLessThan(4000);
    expect(out()).toBe('hi\n');
  }, 30_000);

  it('a child left holding stdout: what the server wrote before its exit reaches a host that reads late', async () => {
    // The host's stdout is a pipe (64 KiB) it reads only well after the server's exit, when the
    // tap has stopped waiting for the pipes' end: the server's last bytes are still in its
    // socket then, written (its write returned, it exited): they are the host's.
    const dir = tmp();
    const written = path.join(dir, 'written');
    const server = `head -c 150000 /dev/zero; touch ${written}; sleep 30 & echo $! > ${dir}/child; exit 0`;
    const host = [
      `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} tap --no-publish -- sh -c '${server}' </dev/null 2>/dev/null`,
      `| { i=0; while [ ! -e ${written} ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; sleep 2.5; wc -c; }`,
    ].join(' ');
    const c = spawn('sh', ['-c', host], {
      env: { ...process.env, PIPESCOPE_TAP_DIR: dir, PIPESCOPE_TRACE_DIR: dir, ...relayEnv },
    });
    running.add(c);
    const out = collect(c.stdout);
    await closed(c);
    try {
      process.kill(Number(readFileSync(path.join(dir, 'child'), 'utf8')), 'SIGKILL');
    } catch {
      // gone already
    }
    expect(readdirSync(dir)).toContain('written');
    expect(out().trim()).toBe('150000');
  }, 30_000);

  it('a child left holding only stdin does not delay the exit the host sees', async () => {
    // The server's stdout and stderr have ended and it has exited: nothing is left to relay
    // (the host's later lines have no server to go to), so the tap ends with it, not after the
    // grace a child holding its output gets. Its end is timed from the server's own clock, once
    // the observer is loaded (its start-up is not what is measured).
    const dir = tmp();
    const exited = path.join(dir, 'exited');
    const server = [
      `exec 3<&0; sleep 30 <&3 3<&- >/dev/null 2>&1 & echo $! > '${dir}/child'`,
      `echo '{"jsonrpc":"2.0","method":"ready"}'; read line; date +%s%3N > '${exited}'`,
    ].join('; ');
    const c = tap(['--no-publish', '--', 'sh', '-c', server], dir);
    const out = collect(c.stdout);
    c.stderr.resume();
    c.stdin.on('error', () => {});
    await waitFor(() => out().includes('ready'), 10_000, 'the server ready');
    await new Promise((r) => setTimeout(r, 1500));
    c.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    const [code] = await closed(c);
    const afterExit = Date.now() - Number(readFileSync(exited, 'utf8'));
    try {
      process.kill(Number(readFileSync(path.join(dir, 'child'), 'utf8')), 'SIGKILL');
    } catch {
      // gone already
    }
    expect(code).toBe(0);
    // The grace for a child holding the output is a second (AFTER_EXIT_MS): well under it.
    expect(afterExit).toBeLessThan(800);
  }, 30_000);

  it('a tap killed outright (SIGKILL) takes its server with it, as the host’s SIGKILL would', async () => {
    // Killed the instant its first child exists, again and again: the window between the fork
    // and the parent-death signal is where an orphan was left (setpriv never checked).
    for (let attempt = 0; attempt < 6; attempt++) {
      const c = tap(['--no-publish', '--', 'sh', '-c', 'trap "" TERM; exec sleep 30'], tmp());
      const children = (): number[] => {
        try {
          const task = `/proc/${c.pid}/task`;
          return readdirSync(task).flatMap((t) =>
            readFileSync(`${task}/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
          );
        } catch {
          return [];
        }
      };
      const first = await waitFor(() => children()[0], 10_000, "the tap's first child");
      c.kill('SIGKILL');
      await closed(c);
      // Whatever it had started by then (the server, the native relay) ends with it.
      await waitFor(() => !alive(first), 5000, `child ${first} gone (attempt ${attempt})`);
    }
  }, 90_000);

  it('a server that closed its stdin: the host’s next write fails, as without the tap', async () => {
    const c = tap(['--no-publish', '--', 'sh', '-c', 'exec 0<&-; sleep 2; echo done'], tmp());
    await new Promise((r) => setTimeout(r, 800));
    const failed = new Promise<string>((r) =>
      c.stdin.once('error', (e) => r((e as NodeJS.ErrnoException).code ?? '')),
    );
    c.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    setTimeout(() => c.stdin.write('again\n'), 200);
    expect(await failed).toBe('EPIPE');
    expect((await closed(c))[0]).toBe(0);
  }, 30_000);

  it('a server that closed stdout and stderr still gets the host’s lines until stdin ends', async () => {
    // Its output ends while it reads on: without the tap the host's later writes reach it, and
    // so they must through the tap.
    const dir = tmp();
    const got = path.join(dir, 'got.txt');
    const c = tap(['--no-publish', '--', 'sh', '-c', `exec 1>&- 2>&-; cat > '${got}'`], dir);
    const out = collect(c.stdout);
    c.stderr.resume();
    // A relay that ended with the output fails the later writes (EPIPE): what the server got says so.
    c.stdin.on('error', () => {});
    // The server has closed its output by the time it reads (its file exists).
    await waitFor(() => existsSync(got), 10_000, 'the server reading');
    await new Promise((r) => setTimeout(r, 300));
    const lines = Array.from({ length: 50 }, (_, i) => `{"jsonrpc":"2.0","id":${i}}\n`);
    for (const line of lines) {
      c.stdin.write(line);
      await new Promise((r) => setTimeout(r, 5));
    }
    c.stdin.end();
    expect((await closed(c))[0]).toBe(0);
    expect(out()).toBe('');
    expect(readFileSync(got, 'utf8')).toBe(lines.join(''));
  }, 30_000);

  it('a host whose stdout and stderr are files opened to append: every byte lands there', async () => {
    // `tap -- server >>out.log 2>>err.log`: splice(2) refuses a file opened O_APPEND (EINVAL).
    const dir = tmp();
    const files = ['out.log', 'err.log'].map((f) => path.join(dir, f));
    for (const f of files) writeFileSync(f, 'before\n');
    const [out, err] = files.map((f) => openSync(f, 'a'));
    const c = spawn(
      process.execPath,
      [CLI, 'tap', '--no-publish', '--', 'sh', '-c', 'cat; echo err-line >&2; echo last'],
      {
        stdio: ['pipe', out, err],
        env: { ...process.env, PIPESCOPE_TAP_DIR: dir, PIPESCOPE_TRACE_DIR: dir, ...relayEnv },
      },
    );
    for (const fd of [out, err]) closeSync(fd as number);
    const line = '{"jsonrpc":"2.0","id":1,"result":{}}\n';
    c.stdin?.end(line);
    const [code, signal] = await new Promise<[number | null, string | null]>((r) =>
      c.on('close', (cd, sg) => r([cd, sg])),
    );
    expect([code, signal]).toEqual([0, null]);
    expect(readFileSync(files[0] as string, 'utf8')).toBe(`before\n${line}last\n`);
    expect(readFileSync(files[1] as string, 'utf8')).toContain('before\nerr-line\n');
  }, 30_000);

  it("the host's stdin and stdout are left as the tap found them (blocking)", async () => {
    // A terminal, or a pipe the host shares with others: O_NONBLOCK set on it and left there
    // makes the next program that reads it fail (EAGAIN). Fds of our own, shared with the tap.
    const dir = tmp();
    const fifos = ['in', 'out'].map((f) => path.join(dir, f));
    for (const f of fifos) expect(spawnSync('mkfifo', [f]).status).toBe(0);
    const [stdin, stdout] = fifos.map((f) => openSync(f, 'r+')) as [number, number];
    const nonblocking = (fd: number): boolean =>
      (Number.parseInt(
        /flags:\s+(\d+)/.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1] ?? '0',
        8,
      ) &
        0o4000) !==
      0;
    expect([nonblocking(stdin), nonblocking(stdout)]).toEqual([false, false]);
    const c = spawn(
      process.execPath,
      [CLI, 'tap', '--no-publish', '--', 'sh', '-c', 'head -n 1; echo done'],
      {
        stdio: [stdin, stdout, 'pipe'],
        env: { ...process.env, PIPESCOPE_TAP_DIR: dir, PIPESCOPE_TRACE_DIR: dir, ...relayEnv },
      },
    );
    c.stderr?.resume();
    writeFileSync(fifos[0] as string, '{}\n');
    const code = await new Promise<number | null>((r) => c.on('close', (cd) => r(cd)));
    expect(code).toBe(0);
    expect([nonblocking(stdin), nonblocking(stdout)]).toEqual([false, false]);
    for (const fd of [stdin, stdout]) closeSync(fd);
  }, 30_000);

  it('a listener at the socket cannot make the tap start anything', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'taps.token'), 'a'.repeat(64), { mode: 0o600 });
    const results: unknown[] = [];
    const conns: Socket[] = [];
    const fake = createServer((s) => {
      conns.push(s);
      let buf = '';
      s.on('data', (d) => {
        buf += d.toString();
        for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
          const msg = JSON.parse(buf.slice(0, nl));
          buf = buf.slice(nl + 1);
          if (msg.type === 'result') results.push(msg.result);
        }
      });
    });
    await new Promise<void>((r) => fake.listen(path.join(dir, 'taps.sock'), () => r()));
    const marker = path.join(dir, 'pwned');
    const c = tap(['--', 'sleep', '30'], dir);
    const conn = await waitFor(() => conns[0], 10_000, 'the tap connecting');
    const start = { server: { command: 'sh', args: ['-c', `touch ${marker}`] } };
    for (const [channel, payload] of [
      ['session:start', { ...start, sessionId: 'not-yours' }],
      ['session:start', start],
      ['config:discover', {}],
    ] as const) {
      conn.write(`${JSON.stringify({ type: 'call', id: 1, channel, payload })}\n`);
    }
    await waitFor(() => results.length === 3, 5000, 'three answers');
    expect(results.every((r) => (r as { ok: boolean }).ok === false)).toBe(true);
    expect(readdirSync(dir)).not.toContain('pwned');
    c.kill('SIGTERM');
    await closed(c);
    fake.close();
  }, 30_000);
});
