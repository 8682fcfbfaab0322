/**
 * stderr text for display: ANSI escape sequences stripped (shown as plain text, never
 * interpreted), split into lines, filtered. Pure; StderrPanel memoizes each step.
 */

// CSI (ESC [ or the 8-bit CSI 0x9b) with parameters and a final byte; OSC / DCS / SOS / PM /
// APC strings up to BEL or ST (or the end of the line: an unterminated string must not eat the
// rest of the log); any other ESC sequence; a lone trailing ESC.
const ANSI =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are control characters
  /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]|(?:\u001b[\]PX^_]|[\u0090\u009d\u009e\u009f])[^\u0007\u001b\u009c\n]*(?:\u0007|\u001b\\|\u009c)?|\u001b[ -/]*[0-~]|\u001b$/g;

// Other C0/C1 controls except tab (which the display keeps); CR is dealt with by splitLines.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/** Text without terminal escape sequences or stray control characters (tab, CR, LF kept). */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '').replace(CONTROL, '');
}

/**
 * Display lines: CRLF and LF end lines; a final newline does not add an empty line; a lone
 * CR (progress bars) is shown as a line break too rather than overwriting text.
 */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = stripAnsi(text).split(/\r\n|\n|\r/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Lines containing `query` (case-insensitive); the same array when the query is blank. */
export function filterLines(lines: readonly string[], query: string): readonly string[] {
  const needle = query.trim().toLowerCase();
  if (needle === '') return lines;
  return lines.filter((line) => line.toLowerCase().includes(needle));
}

/** The note shown when the host skipped or dropped stderr bytes (null when none were). */
export function skippedNote(skippedBytes: number): string | null {
  if (!Number.isFinite(skippedBytes) || skippedBytes <= 0) return null;
  const grouped = Math.round(skippedBytes)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const unit = skippedBytes === 1 ? 'byte' : 'bytes';
  return `${grouped} earlier ${unit} of stderr not shown (over the display cap or dropped).`;
}
