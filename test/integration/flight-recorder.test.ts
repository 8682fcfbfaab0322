/**
 * The flight recorder on a real session: its requests' lines are made only at a dump
 * (`lazyLines`); its frames' and requests' lines are exactly the lines a trace file recorded at
 * the same time has, redaction included; a second dump makes nothing twice (the same lines, the
 * same counts); and lines made longer than their estimate do not take the ring past its bound.
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
/** The lines made at a dump: frames' and requests' (a request's record holds "type" too, so
 *  the event's own key is the one right after `t`). */
const lazyLines = (file: string): string[] =>
  lines(file)
    .filter((l) => /^\{"t":[\d.]+,"type":"(frame|request)"/.test(l))
    // A request event's t is when each recorder heard of it (the two, µs apart); a frame's is
    // the frame's own.
    .map((l) => (l.includes('"type":"request"') ? l.replace(/^\{"t":[\d.]+,/, '{') : l));
const header = (file: string): TraceHeader => JSON.parse(lines(file)[0] as string) as TraceHeader;
/** Values replaced, all rules together. */
const replaced = (h: TraceHeader): number =>
  (h.redaction?.rules ?? []).reduce((n, r) => n + r.count, 0);

describe('flight recorder', () => {
  it("a dump's frames and requests are the trace file's, line for line, redacted the same", async () => {
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

    const eager = lazyLines(file);
    expect(eager.length).toBeGreaterThanOrEqual(20);
    // The dumps were made before the session stopped: the file has what came after (its end).
    const lazy = lazyLines(first as string);
    expect(lazy).toEqual(eager.slice(0, lazy.length));
    expect(lazy.length).toBeGreaterThanOrEqual(20);
    // Requests as they were at each event: pending, then answered (and audited).
    const search = lazy.filter((l) => l.includes('"type":"request"') && l.includes('tools/call'));
    expect(search.some((l) => l.includes('"status":"pending"'))).toBe(true);
    expect(search.some((l) => l.includes('"status":"completed"') && l.includes('"audit"'))).toBe(
      true,
    );
    expect(lazyLines(second as string)).toEqual(lazy);
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

  it('a dump holds the ring to its bound with the lines made, longer than their estimate', async () => {
    const session = startSession({ ...demoCommand('healthy') });
    const maxBytes = 256 * 1024;
    const flight = new FlightRecorder(session, { dir: tmp, name: 'bound', maxBytes, onDump() {} });
    await withTimeout(session.whenStarted(), 5000, 'start');
    await withTimeout(initialize(session, 5000), 5000, 'initialize');
    // Large frames (a quote is two characters in a line) fill the ring; the requests' lines,
    // made at the dump, come out longer than their estimate (an audit each).
    const text = '"'.repeat(10_000);
    for (let i = 0; i < 24; i++)
      await withTimeout(callTool(session, 'echo', { text }).done, 5000, `echo ${i}`);
    expect(flight.held.bytes).toBeLessThanOrEqual(maxBytes);
    const file = flight.dump('asked for by the test');
    expect(file).not.toBeNull();
    const h = header(file as string) as TraceHeader & {
      flightRecorder: { heldBytes: number; droppedBytes: number };
    };
    expect(flight.held.bytes).toBeLessThanOrEqual(maxBytes);
    expect(h.flightRecorder.heldBytes).toBeLessThanOrEqual(maxBytes);
    const held = lines(file as string).slice(1, -2);
    expect(held.reduce((n, l) => n + l.length + 1, 0)).toBeLessThanOrEqual(maxBytes);
    // The newest are kept, up to the last frame the session saw, the oldest gone.
    const seqs = held
      .filter((l) => l.includes('"type":"frame"'))
      .map((l) => (JSON.parse(l) as { seq: number }).seq);
    expect(seqs.length).toBeGreaterThanOrEqual(4);
    expect(seqs.at(-1)).toBe(session.frames.summaries(0, 1000).at(-1)?.seq);
    expect(seqs[0]).toBeGreaterThan(1);
    expect(h.flightRecorder.droppedBytes).toBeGreaterThan(0);
    flight.dispose();
  });
});
