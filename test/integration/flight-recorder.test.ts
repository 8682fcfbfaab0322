/**
 * The flight recorder on a real session: its frames' lines are made only at a dump
 * (`lazyFrameText`), and they are exactly the lines a trace file recorded at the same time has,
 * redaction included; a second dump makes nothing twice (the same lines, the same counts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { demoCommand } from '../../dist/electron/demo-servers/launch.js';
import { callTool, initialize, listTools } from '../../dist/electron/engine/session/mcp-client.js';
import { FlightRecorder } from '../../dist/electron/engine/trace/flight-recorder.js';
import { TraceRecorder } from '../../dist/electron/engine/trace/recorder.js';
import type { TraceHeader } from '../../dist/shared/trace-format.js';
import { startSession, stopAllSessions, withTimeout } from './helpers.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'pipescope-flight-'));
afterEach(stopAllSessions);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const lines = (file: string): string[] => readFileSync(file, 'utf8').split('\n').filter(Boolean);
const frameLines = (file: string): string[] =>
  lines(file).filter((l) => l.includes('"type":"frame"'));
const header = (file: string): TraceHeader => JSON.parse(lines(file)[0] as string) as TraceHeader;
/** Values replaced, all rules together. */
const replaced = (h: TraceHeader): number =>
  (h.redaction?.rules ?? []).reduce((n, r) => n + r.count, 0);

describe('flight recorder', () => {
  it("a dump's frames are the trace file's, line for line, redacted the same", async () => {
    const session = startSession({ ...demoCommand('healthy') });
    const file = path.join(tmp, 'eager.jsonl');
    const recorder = TraceRecorder.start(session, { path: file });
    const dumps: string[] = [];
    const flight = new FlightRecorder(session, {
      dir: tmp,
      name: 'lazy',
      onDump: (r) => {
        if (r.path) dumps.push(r.path);
      },
    });
    await withTimeout(session.whenStarted(), 5000, 'start');
    await withTimeout(initialize(session, 5000), 5000, 'initialize');
    await withTimeout(listTools(session, 5000), 5000, 'tools/list');
    // A secret under a secret's name, and a text that is not UTF-8 safe to keep as is.
    const secret = 'sk_live_0123456789abcdefghij';
    for (const query of ['item', 'naïve — ünïcode ✓', '"quoted" \\ back\nslash'])
      await withTimeout(
        callTool(session, 'search', { query, api_key: secret }).done,
        5000,
        `search ${query}`,
      );
    recorder.flush();

    const first = flight.dump('asked for by the test');
    expect(first).not.toBeNull();
    const second = flight.dump('again');
    expect(second).not.toBeNull();
    await session.stop();
    await withTimeout(recorder.finish(), 5000, 'finish');
    flight.dispose();
    expect(dumps).toEqual([first, second]);

    const eager = frameLines(file);
    expect(eager.length).toBeGreaterThanOrEqual(10);
    // The dumps were made before the session stopped: the file has what came after (its end).
    const lazy = frameLines(first as string);
    expect(lazy).toEqual(eager.slice(0, lazy.length));
    expect(lazy.length).toBeGreaterThanOrEqual(10);
    expect(frameLines(second as string)).toEqual(lazy);
    const redacted = lazy.filter((l) => l.includes('"redacted":true'));
    expect(redacted.length).toBeGreaterThanOrEqual(3);
    for (const l of lazy) expect(l).not.toContain(secret);
    // Counted once, when the lines were made (the first dump), not again by the second: as many
    // as the trace file counted, which made its lines as they came.
    const counted = replaced(header(first as string));
    expect(counted).toBeGreaterThanOrEqual(3);
    expect(replaced(header(second as string))).toBe(counted);
    expect(replaced(header(file))).toBe(counted);
  });
});
