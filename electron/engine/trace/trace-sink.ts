/**
 * Where a recorder's lines go: a file (`fileSink`), or a flight recorder's ring. Whole lines,
 * the header first; the header is rewritten in place once the recording finishes (its final
 * redaction counts fill the room left for them at the end of the line).
 */
import { closeSync, createWriteStream, openSync, writeSync } from 'node:fs';

/** A line made only when it is read: a flight recorder's request (most are never written out,
 *  and their JSON was 7-10 % of a tap's observer's CPU). */
export interface LazyLine {
  /** What holding it costs, in bytes (what the line will about be). */
  readonly bytes: number;
  render(): string;
}

/** Where the lines go: the file, or a flight recorder's ring; whole lines, the header first. */
export interface TraceSink {
  write(chunk: string): void;
  /** Takes a line to make later (a sink without it gets only made lines). */
  writeLazy?(line: LazyLine): void;
  /** Bytes written and not yet taken (a slow disk): past a bound, lines are dropped. */
  readonly writableLength: number;
  /** Ends it; `done` once everything written is taken (or it failed). */
  end(done: () => void): void;
  destroy(): void;
  /** Replaces the header line (same length, no newline) after `end` (a file: in place). */
  rewriteHeader?(line: string): void;
}

/** Lines waiting for a sink, in order (made ones and lazy ones), and what they hold. */
export class PendingLines {
  private lines: (string | LazyLine)[] = [];
  bytes = 0;

  get length(): number {
    return this.lines.length;
  }

  push(line: string | LazyLine): void {
    this.lines.push(line);
    this.bytes += typeof line === 'string' ? Buffer.byteLength(line) : line.bytes;
  }

  /** Drops them all; how many there were. */
  clear(): number {
    const n = this.lines.length;
    this.lines = [];
    this.bytes = 0;
    return n;
  }

  /** Gives them all to `sink`, in order: made lines in runs, each lazy one in its place (a
   *  sink without `writeLazy` gets it made). */
  writeTo(sink: TraceSink): void {
    const lines = this.lines;
    this.clear();
    let run: string[] = [];
    const writeRun = (): void => {
      if (run.length > 0) sink.write(run.length === 1 ? (run[0] as string) : run.join(''));
      run = [];
    };
    for (const line of lines) {
      if (typeof line === 'string') run.push(line);
      else if (sink.writeLazy) {
        writeRun();
        sink.writeLazy(line);
      } else run.push(line.render());
    }
    writeRun();
  }
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
  // The user's alone, as the flight recorder's are: payloads are in it (secrets redacted).
  const fd = openSync(path, overwrite ? 'w' : 'wx', 0o600);
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
