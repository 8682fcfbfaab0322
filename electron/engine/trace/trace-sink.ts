/**
 * Where a recorder's lines go: a file (`fileSink`), or a flight recorder's ring. Whole lines,
 * the header first; the header is rewritten in place once the recording finishes (its final
 * redaction counts fill the room left for them at the end of the line).
 */
import { closeSync, createWriteStream, openSync, writeSync } from 'node:fs';

/** Where the lines go: the file, or a flight recorder's ring; whole lines, the header first. */
export interface TraceSink {
  write(chunk: string): void;
  /** Bytes written and not yet taken (a slow disk): past a bound, lines are dropped. */
  readonly writableLength: number;
  /** Ends it; `done` once everything written is taken (or it failed). */
  end(done: () => void): void;
  destroy(): void;
  /** Replaces the header line (same length, no newline) after `end` (a file: in place). */
  rewriteHeader?(line: string): void;
}

/** Room left at the end of the header line for the final redaction counts. */
export const HEADER_ROOM_BYTES = 160;

/** Writes `line` over the first line of `file` (same length): the final header. */
export function rewriteFirstLine(file: string, line: string): void {
  let fd: number | null = null;
  try {
    fd = openSync(file, 'r+');
    writeSync(fd, line, 0, 'utf8');
  } catch {
    // The file went (moved, deleted): its header keeps the counts of its start (`final: false`).
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** A file at `path` (replaced, or refused when it exists and `overwrite` is false): throws
 *  when it cannot be opened; later write errors go to `onError`. */
export function fileSink(
  path: string,
  overwrite: boolean,
  onError: (e: unknown) => void,
): TraceSink {
  const fd = openSync(path, overwrite ? 'w' : 'wx');
  const ws = createWriteStream(path, { fd });
  ws.on('error', onError);
  return {
    write: (chunk) => ws.write(chunk),
    get writableLength() {
      return ws.writableLength;
    },
    end: (done) => {
      if (ws.destroyed) return done();
      ws.end(() => done());
      ws.once('error', () => done());
      ws.once('close', () => done());
    },
    destroy: () => ws.destroy(),
    rewriteHeader: (line) => rewriteFirstLine(path, line),
  };
}
