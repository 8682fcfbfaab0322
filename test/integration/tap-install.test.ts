/**
 * `pipescope tap install` / `uninstall` as a process, on copies of the fixtures of each host's
 * format (test/fixtures/configs/tap/): a backup equal to the original, the stdio entries
 * wrapped in `<node> <bin/pipescope.js> tap … -- <original argv>` (with the native relay in
 * front where it is built: `<relay> node <node> <bin> tap …`), a second install that changes no
 * byte, and an uninstall that gives back the original bytes. Usage errors: exit 2. The wrapped
 * entry started as a host would: it relays, and the host's environment reaches the server exactly
 * (NODE_EXTRA_CA_CERTS not the tap's own Node). The app's launcher writes the same front.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importConfigText } from '../../dist/electron/engine/config/import.js';
import { appTapLauncher } from '../../dist/electron/engine/host/tap-launcher.js';
import { RELAY_BINARY, relayBinaryUnavailable } from '../../dist/electron/native-binary.js';
import { CLI, REPO, runCli, withTimeout } from './helpers.js';

/** What a wrapped entry starts before bin/pipescope.js: the native relay in front where it can
 *  run here (Linux, built), else Node itself. */
const START: string[] =
  relayBinaryUnavailable(RELAY_BINARY) === null
    ? [RELAY_BINARY, 'node', process.execPath]
    : [process.execPath];

const FIXTURES = path.join(REPO, 'test/fixtures/configs/tap');
const work = mkdtempSync(path.join(tmpdir(), 'pipescope-tap-install-'));
cpSync(FIXTURES, work, { recursive: true });
afterAll(() => rmSync(work, { recursive: true, force: true }));

const FILES: [string, string, number][] = [
  ['claude_desktop_config.json', 'Claude Desktop', 3],
  ['cursor/.cursor/mcp.json', 'Cursor', 2],
  ['vscode/.vscode/mcp.json', 'VS Code', 2],
  ['vscode-crlf/.vscode/mcp.json', 'VS Code', 2],
  ['claude-code/.claude.json', 'Claude Code', 3],
  ['claude-code/.mcp.json', 'Claude Code', 1],
];

/** The files beside `file` that tap install made (backups, manifest). */
function siblings(file: string): string[] {
  const base = path.basename(file);
  return readdirSync(path.dirname(file))
    .filter((f) => f.startsWith(`${base}.pipescope-`))
    .sort();
}

describe.each(FILES)('tap install --config %s', (name, host, wrappedCount) => {
  const file = path.join(work, name);
  const original = readFileSync(path.join(FIXTURES, name));

  it('backs up, wraps, refuses to wrap twice, and uninstall restores the bytes', async () => {
    chmodSync(file, 0o600);
    const first = await runCli(['tap', 'install', '--config', file]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.match(/^ {2}wrapped {8}/gm)).toHaveLength(wrappedCount);
    expect(first.stdout).toContain(`Restart ${host} for the change to take effect.`);
    const backup = /^Backup of the previous file: (.+)$/m.exec(first.stdout)?.[1];
    expect(backup).toBeDefined();
    expect(readFileSync(backup as string)).toEqual(original);
    expect(statSync(backup as string).mode & 0o777).toBe(0o600);
    const installed = readFileSync(file);
    expect(installed.equals(original)).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const made = siblings(file);
    expect(made).toHaveLength(2); // the backup and the manifest

    // As the host reads it: every stdio server now starts `[relay node] node bin/pipescope.js tap … --`.
    const before = importConfigText(original.toString('utf8'), 'auto', file);
    const after = importConfigText(installed.toString('utf8'), 'auto', file);
    expect(after.servers).toHaveLength(before.servers.length);
    for (const [k, s] of after.servers.entries()) {
      const was = before.servers[k];
      expect([s.command, ...s.args]).toEqual([
        ...START,
        CLI,
        'tap',
        '--name',
        was.name,
        '--host',
        host,
        '--',
        was.command,
        ...was.args,
      ]);
    }

    const second = await runCli(['tap', 'install', '--config', file]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.match(/^ {2}already tapped /gm)).toHaveLength(wrappedCount);
    expect(second.stdout).toContain('No change: the file was not written.');
    expect(readFileSync(file)).toEqual(installed);
    expect(siblings(file)).toEqual(made);

    const back = await runCli(['tap', 'uninstall', '--config', file]);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout.match(/^ {2}unwrapped .* \(exactly as before\)$/gm)).toHaveLength(
      wrappedCount,
    );
    expect(back.stdout).toContain(`Restart ${host} for the change to take effect.`);
    expect(readFileSync(file)).toEqual(original);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // The manifest is gone; the backups of both writes stay.
    expect(siblings(file).filter((f) => f.endsWith('.pipescope-tap.json'))).toEqual([]);
    expect(siblings(file).filter((f) => f.includes('.pipescope-backup-'))).toHaveLength(2);
  });
});

describe('tap install options and errors', () => {
  const file = path.join(work, 'selected', 'claude_desktop_config.json');
  cpSync(path.join(FIXTURES, 'claude_desktop_config.json'), file);

  it('--server limits the install; --json gives one object', async () => {
    const r = await runCli(['tap', 'install', '--config', file, '--server', 'github', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({
      action: 'install',
      format: 'claude-desktop',
      host: 'Claude Desktop',
      changed: true,
      servers: [{ name: 'github', location: 'mcpServers', status: 'wrapped' }],
      restart: 'Restart Claude Desktop for the change to take effect.',
    });
    expect(readFileSync(result.backup)).toEqual(
      readFileSync(path.join(FIXTURES, 'claude_desktop_config.json')),
    );
    const value = JSON.parse(readFileSync(file, 'utf8'));
    expect(value.mcpServers.filesystem.command).toBe('npx');
    expect(value.mcpServers.github.command).toBe(START[0]);
    expect(value.mcpServers.github.args.slice(START.length - 1, START.length + 1)).toEqual([
      CLI,
      'tap',
    ]);
  });

  it('refuses an unknown server, listing those present, and changes nothing (exit 2)', async () => {
    const before = readFileSync(file);
    const r = await runCli(['tap', 'install', '--config', file, '--server', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'pipescope: claude_desktop_config.json: no server named "nope"; the servers in it: "filesystem", "github", "sqlite"\n',
    );
    expect(r.stdout).toBe('');
    expect(readFileSync(file)).toEqual(before);
  });

  it('exit 2 with one line for a missing, unparsable or foreign file', async () => {
    const bad = path.join(REPO, 'test/fixtures/configs/bad.json');
    for (const [args, message] of [
      [['--config', path.join(work, 'missing.json')], /cannot read .*missing\.json: no such file/],
      [['--config', bad], /bad\.json: invalid JSON at line 6, column 7/],
      [['--config', path.join(REPO, 'package.json')], /no "mcpServers" or "servers" object found/],
      [['--config', bad, '--format', 'yaml'], /argument 'yaml' is invalid/],
    ] as const) {
      const r = await runCli(['tap', 'install', ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
    }
    expect((await runCli(['tap', 'install'])).stderr).toMatch(/--config <file>' not specified/);
  });
});

describe('the app\'s launcher ("Tap this host\'s servers")', () => {
  it('under Electron runs the node on PATH, with the relay in front where it can run here', async () => {
    const l = await appTapLauncher({
      electron: '99.0.0',
      pathVar: path.dirname(process.execPath),
      version: async () => 'v22.0.0',
    });
    expect(l.node).toBe(path.join(path.dirname(process.execPath), 'node'));
    expect(l.bin).toBe(CLI);
    // The same front as `tap install` from a terminal: absent where the relay cannot run.
    expect(l.front).toBe(START.length > 1 ? RELAY_BINARY : undefined);
    expect(await appTapLauncher({ electron: undefined })).toMatchObject({
      node: process.execPath,
      front: START.length > 1 ? RELAY_BINARY : undefined,
      note: null,
    });
  });
});

describe('the wrapped entry, when a host starts it', () => {
  const file = path.join(work, 'spawn', 'claude_desktop_config.json');
  const server = `process.stdin.on('data', (d) => process.stdout.write(d)); process.stdin.on('end', () => process.exit(0));`;
  cpSync(path.join(FIXTURES, 'claude_desktop_config.json'), file);

  async function wrappedEcho(): Promise<{ command: string; args: string[] }> {
    const config = JSON.stringify({
      mcpServers: { echo: { command: process.execPath, args: ['-e', server] } },
    });
    writeFileSync(file, config);
    const r = await runCli(['tap', 'install', '--config', file]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(readFileSync(file, 'utf8')).mcpServers.echo;
  }

  it('runs this checkout’s `pipescope tap` on the original argv', async () => {
    const entry = await wrappedEcho();
    expect([entry.command, ...entry.args]).toEqual([
      ...START,
      CLI,
      'tap',
      '--name',
      'echo',
      '--host',
      'Claude Desktop',
      '--',
      process.execPath,
      '-e',
      server,
    ]);
    // The bin it names is this package's, and it has the tap command.
    const help = await runCli(['tap', '--help']);
    expect(help.stdout).toMatch(/install/);
  });

  // The relay itself (`pipescope tap -- <command>`, electron/tap/) is written beside this;
  // once it is built, the wrapped entry must relay a line byte for byte.
  it('relays the host’s stdin to the server and back, once the tap relay exists', async (ctx) => {
    if (!existsSync(path.join(REPO, 'dist/electron/tap/main.js'))) ctx.skip();
    const entry = await wrappedEcho();
    const child = spawn(entry.command, entry.args, { stdio: 'pipe' });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      out += s;
    });
    const line = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n';
    child.stdin.end(line);
    const code = await withTimeout(
      new Promise<number | null>((resolve) => child.once('exit', resolve)),
      15_000,
      'the tapped server to exit',
    );
    expect(out).toBe(line);
    expect(code).toBe(0);
  });

  /** The server's whole environment (its first line) as the tap started it from `argv`, and the
   *  tap's own initial environment (/proc/<pid>/environ: the relay exec'd Node in that pid). */
  async function serverEnv(
    argv: string[],
    env: NodeJS.ProcessEnv,
  ): Promise<{ server: Record<string, string>; tap: string[]; pid?: number; code: number | null }> {
    const child = spawn(argv[0], argv.slice(1), { stdio: 'pipe', env });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      out += s;
    });
    await withTimeout(
      new Promise<void>((ok) => child.stdout.on('data', () => out.includes('\n') && ok())),
      15_000,
      "the server's report",
    );
    const tap = readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0');
    child.stdin.end();
    const code = await withTimeout(
      new Promise<number | null>((ok) => child.once('exit', ok)),
      15_000,
      'the tapped server to exit',
    );
    return { server: JSON.parse(out.split('\n')[0] ?? ''), tap, pid: child.pid, code };
  }
  const report = `process.stdout.write(JSON.stringify(process.env) + '\\n'); process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`;

  /** The host's environment for one case: `vars` over a copy of ours without either variable. */
  function hostEnv(dir: string, vars: Record<string, string>): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    delete env.NODE_EXTRA_CA_CERTS;
    delete env.PIPESCOPE_TAP_FRONT_CA;
    return { ...env, TAP_CANARY: 'c=1', TAP_EMPTY: '', PIPESCOPE_TRACE_DIR: dir, ...vars };
  }

  it.runIf(START.length > 1)(
    "the host's NODE_EXTRA_CA_CERTS reaches the server as it was, and not the tap's own Node",
    async () => {
      // Node reads that bundle before any script runs (~45 ms where it is set): the relay in
      // front keeps it from the tap's Node and bin/pipescope.js gives it back for the server.
      writeFileSync(
        file,
        JSON.stringify({
          mcpServers: { env: { command: process.execPath, args: ['-e', report] } },
        }),
      );
      const r = await runCli(['tap', 'install', '--config', file]);
      expect(r.code, r.stderr).toBe(0);
      const entry = JSON.parse(readFileSync(file, 'utf8')).mcpServers.env;
      const dir = mkdtempSync(path.join(tmpdir(), 'tap-front-'));
      try {
        for (const ca of [path.join(dir, 'no such bundle=.pem'), '', null]) {
          const env = hostEnv(dir, ca === null ? {} : { NODE_EXTRA_CA_CERTS: ca });
          const got = await serverEnv([entry.command, ...entry.args], env);
          expect(got.code).toBe(0);
          // The whole environment, as the host gave it: nothing added, nothing missing.
          expect(got.server, `NODE_EXTRA_CA_CERTS ${JSON.stringify(ca)}`).toEqual(env);
          expect(got.tap.some((kv) => kv.startsWith('NODE_EXTRA_CA_CERTS='))).toBe(false);
          // Tagged with the pid that moved it (bin/pipescope.js gives back only that).
          expect(got.tap.filter((kv) => kv.startsWith('PIPESCOPE_TAP_FRONT_CA='))).toEqual(
            ca === null ? [] : [`PIPESCOPE_TAP_FRONT_CA=${got.pid}:${ca}`],
          );
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );

  it("a host's own PIPESCOPE_TAP_FRONT_CA reaches the server as it was, with the relay in front or without", async () => {
    // Only the value the relay set (in this process) goes back into NODE_EXTRA_CA_CERTS: a host
    // that has the variable itself, with or without NODE_EXTRA_CA_CERTS, gives its server both
    // as they were.
    const tapArgs = [CLI, 'tap', '--no-publish', '--', process.execPath, '-e', report];
    const dir = mkdtempSync(path.join(tmpdir(), 'tap-front-'));
    try {
      for (const start of START.length > 1 ? [START, [process.execPath]] : [START]) {
        const cases: Record<string, string>[] = [
          { PIPESCOPE_TAP_FRONT_CA: '/host/own.pem' },
          { PIPESCOPE_TAP_FRONT_CA: '' },
          { PIPESCOPE_TAP_FRONT_CA: '0:/looks/like/the/relay.pem' },
          { PIPESCOPE_TAP_FRONT_CA: '/host/own.pem', NODE_EXTRA_CA_CERTS: '/host/ca.pem' },
        ];
        for (const vars of cases) {
          const env = hostEnv(dir, vars);
          const got = await serverEnv([...start, ...tapArgs], env);
          expect(got.code).toBe(0);
          expect(
            got.server,
            `${start.length > 1 ? 'front' : 'node'} ${JSON.stringify(vars)}`,
          ).toEqual(env);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
