/**
 * Recording a live session from the app (`session:record`): where a trace goes by default, how a
 * recorder is started with its failure turned into a Result, and exports of a recording (finished
 * or still being written: the reader skips a cut last line). The recorder itself is
 * trace/recorder.ts; each live session (live-session.ts) owns its recorder.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { err, ok, type Result } from '../../../shared/result.js';
import type { ExportFormat, TraceExport } from '../../../shared/trace-api.js';
import type { Session } from '../session/session.js';
import { TraceReadError, TraceReader } from '../trace/reader.js';
import { TraceRecorder } from '../trace/recorder.js';
import { summarizeTrace } from '../trace/summary.js';
import { exportSummary } from '../trace/trace-session.js';

/** `PIPESCOPE_TRACE_DIR`, else `~/.pipescope/traces`. */
export function defaultTraceDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.PIPESCOPE_TRACE_DIR || path.join(homedir(), '.pipescope', 'traces');
}

/** Where a recording asked for by name goes: an absolute path as is, any other name in the
 *  traces folder (never the server's cwd, nor ours). */
export function recordingPath(asked: string, dir = defaultTraceDir()): string {
  return path.isAbsolute(asked) ? asked : path.resolve(dir, asked);
}

/** `<dir>/<title>-<ISO time>.jsonl`, the title and time made safe for any file system. */
export function defaultTracePath(title: string, now = new Date(), dir = defaultTraceDir()): string {
  const safeTitle = title
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 60);
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  return path.join(dir, `${safeTitle || 'session'}-${stamp}.jsonl`);
}

/**
 * Starts recording `session` to `file` (its folder is created). An unwritable path comes back as
 * an error Result; a later failure (a full disk) reaches `onError` once, and the session goes on.
 */
export function startRecording(
  session: Session,
  file: string,
  onError: (message: string) => void,
  overwrite = false,
  redact = true,
): Result<TraceRecorder> {
  if (!overwrite && existsSync(file))
    return err('EEXIST', `trace: ${file} exists already: choose another name, or overwrite it`);
  try {
    ensureDir(path.dirname(file));
  } catch (e) {
    return err('ETRACE', `trace: cannot create ${path.dirname(file)}: ${(e as Error).message}`);
  }
  let started = false;
  const recorder = TraceRecorder.start(session, {
    path: file,
    overwrite,
    redact,
    onError: (message) => {
      if (started) onError(message);
    },
  });
  if (recorder.error) return err('ETRACE', recorder.error);
  started = true;
  return ok(recorder);
}

/**
 * Creates `dir` and its missing parents one level at a time. Not `mkdirSync(…, { recursive })`:
 * under /proc that loops forever on Node 20 (it retries a parent that reports ENOENT).
 */
export function ensureDir(dir: string): void {
  const missing: string[] = [];
  let at = path.resolve(dir);
  while (!existsSync(at)) {
    missing.push(at);
    const parent = path.dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const d of missing.reverse()) mkdirSync(d);
}

/** Exports the trace at `file` (a live session's recording). */
export async function exportRecording(
  file: string,
  format: ExportFormat,
): Promise<Result<TraceExport>> {
  let reader: TraceReader;
  try {
    reader = await TraceReader.open(file);
  } catch (e) {
    return err('ETRACE', e instanceof TraceReadError ? e.message : String(e));
  }
  try {
    return ok(exportSummary(await summarizeTrace(reader), file, format));
  } finally {
    await reader.close();
  }
}
