/**
 * Arguments typed by a person → an argv array, without a shell (HARDENING 17): no variable,
 * glob, tilde or command expansion ever happens; quotes and backslashes only group characters.
 * Also the reverse, for showing the exact command before it runs.
 */
import type { Result } from '../../../shared/result';

export type ArgsMode = 'lines' | 'shell';

/** One argument per line; blank lines are ignored, everything else is kept verbatim. */
export function splitLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line))
    .filter((line) => line.length > 0);
}

/**
 * POSIX-like word splitting: whitespace separates words, '…' is literal, "…" allows \" \\ \$ \`
 * escapes, a backslash outside quotes escapes the next character. `$VAR`, `~` and `*` stay as
 * typed: there is no shell.
 */
export function splitShellLike(text: string): Result<string[]> {
  const out: string[] = [];
  let word = '';
  let inWord = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end === -1) return fail(`unterminated ' quote at column ${i + 1}`);
      word += text.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      for (;;) {
        if (j >= text.length) return fail(`unterminated " quote at column ${i + 1}`);
        const d = text[j];
        if (d === '"') break;
        if (d === '\\' && j + 1 < text.length && '"\\$`'.includes(text[j + 1])) {
          word += text[j + 1];
          j += 2;
        } else {
          word += d;
          j += 1;
        }
      }
      inWord = true;
      i = j + 1;
    } else if (c === '\\') {
      if (i + 1 >= text.length) return fail('a trailing backslash escapes nothing');
      if (text[i + 1] !== '\n') {
        word += text[i + 1];
        inWord = true;
      }
      i += 2;
    } else if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      if (inWord) out.push(word);
      word = '';
      inWord = false;
      i += 1;
    } else {
      word += c;
      inWord = true;
      i += 1;
    }
  }
  if (inWord) out.push(word);
  return { ok: true, value: out };
}

function fail(message: string): Result<string[]> {
  return { ok: false, error: { code: 'EARGS', message } };
}

export function parseArgs(text: string, mode: ArgsMode): Result<string[]> {
  return mode === 'lines' ? { ok: true, value: splitLines(text) } : splitShellLike(text);
}

const SAFE = /^[A-Za-z0-9_\-+=.,/:@%]+$/;

/** Quotes one argument so the displayed command reads back as the same argv. */
export function quoteArg(arg: string): string {
  if (SAFE.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

export function formatArgv(argv: readonly string[]): string {
  return argv.map(quoteArg).join(' ');
}
