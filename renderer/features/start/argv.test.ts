import { describe, expect, it } from 'vitest';
import { formatArgv, parseArgs, quoteArg, splitLines, splitShellLike } from './argv';

function words(text: string): string[] {
  const r = splitShellLike(text);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe('splitLines', () => {
  it('takes one argument per line, verbatim, ignoring blank lines and CR', () => {
    expect(splitLines('--port\r\n8080\n\n  spaced arg  \n')).toEqual([
      '--port',
      '8080',
      '  spaced arg  ',
    ]);
  });
});

describe('splitShellLike', () => {
  it('splits on whitespace', () => {
    expect(words('  server.js --port  8080\t-v\n')).toEqual(['server.js', '--port', '8080', '-v']);
  });

  it('groups with quotes and escapes', () => {
    expect(words(`'a b' "c \\"d\\" e" f\\ g "" ''`)).toEqual(['a b', 'c "d" e', 'f g', '', '']);
    expect(words(`pre'fix'"ed"`)).toEqual(['prefixed']);
    expect(words(`"back\\slash" 'lit\\eral'`)).toEqual(['back\\slash', 'lit\\eral']);
  });

  it('never expands anything: there is no shell', () => {
    expect(words('$HOME ~/x *.js $(rm -rf /) `id` a;b|c&&d')).toEqual([
      '$HOME',
      '~/x',
      '*.js',
      '$(rm',
      '-rf',
      '/)',
      '`id`',
      'a;b|c&&d',
    ]);
  });

  it('reports unterminated quotes and a trailing backslash', () => {
    expect(splitShellLike(`'open`).ok).toBe(false);
    expect(splitShellLike(`"open`).ok).toBe(false);
    expect(splitShellLike('end\\').ok).toBe(false);
  });

  it('treats backslash-newline as a line continuation', () => {
    expect(words('a \\\nb')).toEqual(['a', 'b']);
  });
});

describe('quoteArg and formatArgv', () => {
  it('quotes only what needs it, and reads back as the same argv', () => {
    expect(quoteArg('server.js')).toBe('server.js');
    expect(quoteArg('a b')).toBe(`'a b'`);
    expect(quoteArg('')).toBe(`''`);
    const argv = ['node', "it's here.js", '--x=$HOME', ''];
    expect(words(formatArgv(argv))).toEqual(argv);
  });

  it('parseArgs switches on the mode', () => {
    expect(parseArgs('a b', 'lines')).toEqual({ ok: true, value: ['a b'] });
    expect(parseArgs('a b', 'shell')).toEqual({ ok: true, value: ['a', 'b'] });
  });
});
