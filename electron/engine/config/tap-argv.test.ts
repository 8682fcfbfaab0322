import { describe, expect, it } from 'vitest';
import { renderArray, tapIndex, unwrapArgv, wrapArgv } from './tap-argv.js';

const LAUNCHER = { node: '/usr/bin/node', bin: '/opt/pipescope/bin/pipescope.js' };

describe('the tap argv', () => {
  it('wraps a command and reads it back, whatever the name', () => {
    for (const name of ['db', '--', '--host', 'a b "c"', '']) {
      const original = { command: 'npx', args: ['-y', '--', 'pkg', '--name'] };
      const wrapped = wrapArgv(LAUNCHER, name, 'Cursor', original);
      expect(wrapped).toEqual({
        command: '/usr/bin/node',
        args: [
          LAUNCHER.bin,
          'tap',
          '--name',
          name,
          '--host',
          'Cursor',
          '--',
          'npx',
          '-y',
          '--',
          'pkg',
          '--name',
        ],
      });
      expect(tapIndex(wrapped.command, wrapped.args)).toBe(1);
      expect(unwrapArgv(wrapped.command, wrapped.args)).toEqual(original);
    }
  });

  it('with the native relay in front, starts it first, and still reads the entry back', () => {
    const front = { ...LAUNCHER, front: '/opt/pipescope/dist/electron/tap/pipescope-relay' };
    const original = { command: 'uvx', args: ['mcp-server-git', '--', 'tap'] };
    const wrapped = wrapArgv(front, 'git', 'Claude Desktop', original);
    expect(wrapped).toEqual({
      command: front.front,
      args: [
        'node',
        LAUNCHER.node,
        LAUNCHER.bin,
        'tap',
        '--name',
        'git',
        '--host',
        'Claude Desktop',
        '--',
        'uvx',
        'mcp-server-git',
        '--',
        'tap',
      ],
    });
    expect(tapIndex(wrapped.command, wrapped.args)).toBe(3); // never wrapped twice
    expect(unwrapArgv(wrapped.command, wrapped.args)).toEqual(original);
  });

  it('recognises pipescope tap run by hand, by npx or on Windows, and nothing else', () => {
    expect(tapIndex('pipescope', ['tap', '--', 'x'])).toBe(0);
    expect(tapIndex('C:\\bin\\pipescope.cmd', ['tap', '--', 'x'])).toBe(0);
    expect(tapIndex('npx', ['-y', 'pipescope@latest', 'tap', '--', 'x'])).toBe(2);
    expect(tapIndex('node', ['/a/pipescope.js', 'tap'])).toBe(1);
    expect(tapIndex('pipescope', ['probe', '--', 'x'])).toBe(-1);
    expect(tapIndex('node', ['tap', 'pipescope.js'])).toBe(-1);
    expect(tapIndex('node', ['/a/not-pipescope.js', 'tap'])).toBe(-1);
    expect(tapIndex('node', 'pipescope.js tap')).toBe(-1);
    expect(unwrapArgv('pipescope', ['tap', '--trace', 'f', '--'])).toBeNull();
    expect(unwrapArgv('pipescope', ['tap', '--', 1])).toBeNull();
  });

  it('writes an array in the layout of the one it replaces', () => {
    expect(renderArray(['a', 'b"'], null)).toBe('["a", "b\\""]');
    expect(renderArray(['a'], '["x","y"]')).toBe('["a"]');
    expect(renderArray(['a', 'b'], '[\r\n\t\t"x"\r\n\t]')).toBe('[\r\n\t\t"a",\r\n\t\t"b"\r\n\t]');
    expect(renderArray([], '[\n  "x"\n]')).toBe('[]');
  });
});
