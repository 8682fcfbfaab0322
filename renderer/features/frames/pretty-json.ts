/**
 * Pretty-printing for the frame viewer. The decision (small, complete, parses) is pure and
 * tested; the printer re-indents the original tokens instead of re-serializing, so numbers
 * like 12345678901234567890 or 1e400 and string escapes are shown exactly as sent.
 */
import { PRETTY_MAX_BYTES } from './paging.js';

/** Pretty text for a frame, or null when it is too large, incomplete, or not JSON. */
export function prettyJson(text: string | null, totalBytes: number): string | null {
  if (text === null || totalBytes > PRETTY_MAX_BYTES) return null;
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return null;
  try {
    JSON.parse(trimmed);
  } catch {
    return null;
  }
  return reindentJson(trimmed);
}

/** Re-indent valid JSON text by two spaces, keeping every token's original spelling. */
export function reindentJson(json: string): string {
  const out: string[] = [];
  let depth = 0;
  let i = 0;
  const newline = (): void => {
    out.push('\n', '  '.repeat(depth));
  };
  while (i < json.length) {
    const ch = json[i];
    if (ch === '"') {
      let j = i + 1;
      while (j < json.length && json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
      out.push(json.slice(i, j + 1));
      i = j + 1;
      continue;
    }
    if (ch === '{' || ch === '[') {
      const close = ch === '{' ? '}' : ']';
      let k = i + 1;
      while (k < json.length && /\s/.test(json[k])) k += 1;
      if (json[k] === close) {
        out.push(ch, close);
        i = k + 1;
        continue;
      }
      depth += 1;
      out.push(ch);
      newline();
    } else if (ch === '}' || ch === ']') {
      depth -= 1;
      newline();
      out.push(ch);
    } else if (ch === ',') {
      out.push(',');
      newline();
    } else if (ch === ':') {
      out.push(': ');
    } else if (!/\s/.test(ch)) {
      out.push(ch);
    }
    i += 1;
  }
  return out.join('');
}
