import { describe, expect, it } from 'vitest';
import { filterLines, skippedNote, splitLines, stripAnsi } from './lines.js';

const ESC = '\u001b';

describe('stripAnsi', () => {
  it('removes SGR color codes and keeps the text', () => {
    expect(stripAnsi(`${ESC}[31merror${ESC}[0m: ${ESC}[1;33mwarn${ESC}[m`)).toBe('error: warn');
  });

  it('removes cursor movement, erase and private-mode CSI sequences', () => {
    expect(stripAnsi(`${ESC}[2K${ESC}[1Gprogress ${ESC}[?25l50%${ESC}[?25h`)).toBe('progress 50%');
  });

  it('removes OSC strings ended by BEL or ST (window titles, hyperlinks)', () => {
    expect(stripAnsi(`${ESC}]0;title\u0007after`)).toBe('after');
    expect(stripAnsi(`${ESC}]8;;https://x.test${ESC}\\link${ESC}]8;;${ESC}\\`)).toBe('link');
  });

  it('does not let an unterminated OSC swallow the following lines', () => {
    expect(stripAnsi(`${ESC}]0;oops\nnext line`)).toBe('\nnext line');
  });

  it('removes 8-bit CSI, two-byte escapes and a trailing lone ESC', () => {
    expect(stripAnsi('\u009b32mgreen\u009b0m')).toBe('green');
    expect(stripAnsi(`${ESC}(Bplain${ESC}7saved${ESC}8`)).toBe('plainsaved');
    expect(stripAnsi(`cut${ESC}`)).toBe('cut');
  });

  it('drops other control characters but keeps tab, newline and CR', () => {
    expect(stripAnsi('a\u0000b\u0007c\td\r\ne\u007f')).toBe('abc\td\r\ne');
  });

  it('leaves ordinary text, brackets and unicode alone', () => {
    const text = 'plain [31m not an escape — ünïcödé 🚀 {"a":[1]}';
    expect(stripAnsi(text)).toBe(text);
  });
});

describe('splitLines', () => {
  it('splits on LF and CRLF without a trailing empty line', () => {
    expect(splitLines('one\ntwo\r\nthree\n')).toEqual(['one', 'two', 'three']);
  });

  it('keeps an unterminated last line and inner empty lines', () => {
    expect(splitLines('a\n\nb')).toEqual(['a', '', 'b']);
  });

  it('shows a lone CR as a line break rather than overwriting', () => {
    expect(splitLines('10%\r20%\r30%\n')).toEqual(['10%', '20%', '30%']);
  });

  it('returns no lines for empty text, one empty line for a lone newline', () => {
    expect(splitLines('')).toEqual([]);
    expect(splitLines('\n')).toEqual(['']);
  });

  it('strips ANSI before splitting', () => {
    expect(splitLines(`${ESC}[31mred${ESC}[0m\n${ESC}[32mgreen${ESC}[0m`)).toEqual([
      'red',
      'green',
    ]);
  });

  it('handles a large capped buffer quickly', () => {
    const text = 'line of stderr output with some text\n'.repeat(30_000);
    const started = performance.now();
    const lines = splitLines(text);
    expect(lines).toHaveLength(30_000);
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('filterLines', () => {
  const lines = ['Error: boom', 'info: ok', 'WARN: error-ish', 'done'];

  it('returns the same array for a blank query (no copy)', () => {
    expect(filterLines(lines, '')).toBe(lines);
    expect(filterLines(lines, '   ')).toBe(lines);
  });

  it('matches case-insensitively and trims the query', () => {
    expect(filterLines(lines, ' ERROR ')).toEqual(['Error: boom', 'WARN: error-ish']);
    expect(filterLines(lines, 'nothing')).toEqual([]);
  });
});

describe('skippedNote', () => {
  it('is null when nothing was skipped', () => {
    expect(skippedNote(0)).toBeNull();
    expect(skippedNote(-1)).toBeNull();
    expect(skippedNote(Number.NaN)).toBeNull();
  });

  it('states exact bytes with grouping', () => {
    expect(skippedNote(1)).toContain('1 earlier byte ');
    expect(skippedNote(1_234_567)).toContain('1,234,567 earlier bytes');
  });
});
