import { describe, expect, it } from 'vitest';
import { attachCandidates, type ConfiguredServer, knownHost, runsServer } from './candidates.js';
import type { AttachProc } from './proc.js';

describe('candidates: known hosts by their command line', () => {
  it('names Claude Desktop, Claude Code, Cursor and VS Code', () => {
    expect(knownHost(['/usr/lib/claude-desktop/claude-desktop'])).toBe('Claude Desktop');
    expect(knownHost(['/Applications/Claude.app/Contents/MacOS/Claude'])).toBe('Claude Desktop');
    expect(knownHost(['claude'])).toBe('Claude Code');
    expect(knownHost(['node', '/home/u/.npm-global/bin/claude', '--resume'])).toBe('Claude Code');
    expect(knownHost(['/opt/cursor/cursor'])).toBe('Cursor');
    expect(knownHost(['/tmp/.mount_Cursor/cursor-0.45.AppImage'])).toBe('Cursor');
    expect(knownHost(['/usr/share/code/code', '--unity-launch'])).toBe('VS Code');
    expect(knownHost(['/home/u/.vscode-server/bin/abc/node', 'server-main.js'])).toBe('VS Code');
  });

  it('names nothing else', () => {
    expect(knownHost(['bash'])).toBeNull();
    expect(knownHost(['node', 'server.js'])).toBeNull();
    expect(knownHost(['/usr/bin/codec-helper'])).toBeNull();
    expect(knownHost([])).toBeNull();
  });
});

describe('candidates: a configured server by its command line', () => {
  const server = (command: string, args: string[]): ConfiguredServer => ({
    name: 's',
    command,
    args,
    source: '~/.cursor/mcp.json',
  });

  it('its program (or the script an interpreter runs) and its arguments in order, flags aside', () => {
    expect(
      runsServer(['python3', '/srv/mcp.py', '--port', '1'], server('python3', ['/srv/mcp.py'])),
    ).toBe(true);
    expect(runsServer(['/usr/bin/python3', 'srv.py'], server('python3', ['/home/u/srv.py']))).toBe(
      true,
    );
    expect(
      runsServer(
        ['node', '/usr/bin/npx', '-y', '@m/server-memory'],
        server('npx', ['-y', '@m/server-memory']),
      ),
    ).toBe(true);
    // npm sets its title: one argument with spaces, and npx shows as `npm exec`.
    expect(
      runsServer(['npm exec @m/server-memory'], server('npx', ['-y', '@m/server-memory'])),
    ).toBe(true);
    expect(
      runsServer(
        ['uvx', 'mcp-server-git', '--repository', '.'],
        server('/home/u/.local/bin/uvx', ['mcp-server-git']),
      ),
    ).toBe(true);
  });

  it('not another program, missing arguments, or a bare interpreter', () => {
    expect(runsServer(['python3', 'other.py'], server('python3', ['srv.py']))).toBe(false);
    expect(runsServer(['ruby', 'srv.py'], server('python3', ['srv.py']))).toBe(false);
    expect(runsServer(['node', 'anything.js'], server('node', []))).toBe(false);
    expect(runsServer(['b', 'a'], server('x', ['a', 'b']))).toBe(false);
  });
});

describe('attachCandidates', () => {
  const rows: Record<number, { ppid: number; argv: string[]; stdio: (string | null)[] }> = {
    1: { ppid: 0, argv: ['init'], stdio: [null, null, null] },
    100: {
      ppid: 1,
      argv: ['/usr/lib/claude-desktop/claude-desktop'],
      stdio: ['/dev/null', '/dev/null', '/dev/null'],
    },
    // A server Claude Desktop started, on sockets.
    101: {
      ppid: 100,
      argv: ['node', '/srv/a.js'],
      stdio: ['socket:[1]', 'socket:[2]', '/tmp/log'],
    },
    // Its GPU helper: Electron's own.
    102: {
      ppid: 100,
      argv: ['/usr/lib/claude-desktop/claude-desktop', '--type=gpu-process'],
      stdio: ['socket:[3]', 'socket:[4]', null],
    },
    // A terminal shell under VS Code: a tty, not a server.
    200: { ppid: 1, argv: ['/usr/share/code/code'], stdio: [null, null, null] },
    201: { ppid: 200, argv: ['bash'], stdio: ['/dev/pts/1', '/dev/pts/1', '/dev/pts/1'] },
    // A configured server whose host is unknown.
    300: {
      ppid: 1,
      argv: ['python3', '/home/u/weather.py'],
      stdio: ['pipe:[5]', 'pipe:[6]', null],
    },
    // A kernel thread.
    2: { ppid: 0, argv: [], stdio: [null, null, null] },
  };
  const proc: AttachProc = {
    check: () => ({ ok: true }),
    parentOf: (pid) => rows[pid]?.ppid ?? null,
    commandOf: (pid) => rows[pid]?.argv.join(' ') ?? null,
    argvOf: (pid) => rows[pid]?.argv ?? null,
    stdioOf: (pid) => rows[pid]?.stdio ?? [null, null, null],
    allPids: () => Object.keys(rows).map(Number),
    syscallAccess: () => 'readable',
    one: () => null,
    unixSockets: () => Promise.resolve(null),
  };

  it('lists children of known hosts on pipes or sockets, and configured servers, saying why', async () => {
    const list = await attachCandidates({
      proc,
      configs: [
        {
          name: 'weather',
          command: 'python3',
          args: ['weather.py'],
          source: '/home/u/.claude.json',
        },
      ],
    });
    expect(list).toEqual([
      {
        pid: 101,
        command: 'node /srv/a.js',
        ppid: 100,
        parentCommand: '/usr/lib/claude-desktop/claude-desktop',
        why: ['its parent 100 is Claude Desktop, and its stdin and stdout are pipes or sockets'],
      },
      {
        pid: 300,
        command: 'python3 /home/u/weather.py',
        ppid: 1,
        parentCommand: 'init',
        why: ['runs the server "weather" of /home/u/.claude.json'],
      },
    ]);
  });
});
