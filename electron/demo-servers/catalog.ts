/**
 * The demo catalog: every bundled misbehaving MCP server, in one list. Each entry is the
 * specification of its scenario — the lesson, the knobs (the server reads its defaults from
 * here), how to show it, and the probe recipe with the symptoms it must produce. Integration
 * tests read the expectations from this list so the catalog and the servers cannot drift.
 * Hosts (CLI `demo list`, the app's first screen) get it through the engine.
 * This module owns the list and its order and the entries about tool results and cancellation;
 * the entries about the pipes and the process live in catalog-transport.ts, and what launches
 * a demo (server path, argv with checked knobs) in launch.ts. The servers themselves import this
 * module (their knobs' defaults), so it holds data only.
 */

import type { DemoScenario } from '../../shared/demo-catalog.js';
import { MIB } from '../../shared/units.js';
import { knob, TRANSPORT_DEMOS } from './catalog-transport.js';

export const DEMO_CATALOG: readonly DemoScenario[] = [
  {
    id: 'healthy',
    title: 'Healthy server with a paginated search',
    lesson:
      'What good looks like. Every result is small and bounded: the search tool returns one page, says in structuredContent whether more exists (nextCursor, truncated), gives a total only when it really knows it, and its text summary tells the agent what was left out and how to ask for the next page. The pipe never carries more than a page, so nothing blocks and nothing needs to be cancelled.',
    implementation: 'sdk',
    tools: ['echo', 'health', 'search'],
    knobs: [
      knob('page-size', 20, 'count', 'Items per search page (the content limit of the tool)'),
      knob('items', 237, 'count', 'Size of the searchable corpus'),
      knob('know-total', true, 'boolean', 'Whether the server knows the total (totalEstimate)'),
    ],
    steps: [
      'Start the server and call search {query: "item"}: one page of 20 items arrives quickly.',
      'Read the text summary: it says how many were omitted and to pass nextCursor.',
      'Call search again with the cursor; the last page has no nextCursor and truncated=false.',
      'Run with --know-total=false: totalEstimate disappears instead of being guessed.',
    ],
    probe: { call: 'search', args: { query: 'item' }, timeoutMs: 5000 },
    check: {
      tools: [
        { name: 'search', args: { query: 'item' } },
        { name: 'health' },
        { name: 'echo', args: { text: 'hi' } },
      ],
      failed: [],
      skipped: ['cancel-before-work', 'cancel-mid-output', 'cancel-subprocess'],
      why: 'Passes every case that can run; no tool takes time or starts a subprocess, so the cancellations are skipped.',
    },
    expected: {
      findings: [],
      absentFindings: [
        'stdout-pollution',
        'oversize-frame',
        'server-write-blocked',
        'request-timed-out',
        'server-exited',
        'invalid-message',
      ],
      metrics: ['stdoutBytes', 'frames', 'largestFrameBytes', 'stdinBytes'],
      requestStatus: 'completed',
    },
  },
  {
    id: 'oversized-result',
    title: 'Oversized result blocks the server in write()',
    lesson:
      'The dump tool answers with one 8 MiB line. A pipe holds only 64 KiB, so as soon as the host stops reading, the server\'s write() cannot finish: it waits for "drain" mid-response, prints "stdout backpressure observed" to stderr and sits there, alive but stuck. While it waits it cannot answer anything else, and the half-sent message is useless to the host. Growing the host\'s message queue does not help; only reading the pipe (and keeping results small) does.',
    implementation: 'sdk',
    tools: ['dump', 'echo'],
    knobs: [
      knob('bytes', 8 * MIB, 'bytes', 'Size of the text of the dump result'),
      knob('chunk-bytes', 16 * 1024, 'bytes', 'Size of each stdout write'),
      knob(
        'blocking-stdout',
        false,
        'boolean',
        "Make stdout blocking, as a C or Python server's is: the server then sits in write(1, …)",
      ),
    ],
    steps: [
      'Pause the reader, call dump, watch stdout bytes stop while the process stays alive.',
      'Note "stdout backpressure observed" on stderr: the server is parked in write().',
      'Resume the reader: the 8 MiB frame completes and the request finishes.',
      'Set a max frame size below 8 MiB to see the framer discard it as oversize instead.',
      'Run with --blocking-stdout=true: Node then writes stdout as C and Python do, and the process panel shows the server blocked in write(1, 16,384 B) instead of idle in its event loop with the rest of its output in memory.',
    ],
    probe: { call: 'dump', reader: 'paused', timeoutMs: 3000 },
    check: {
      // 2 MiB, not 8: over the budget all the same, and quick enough never to count as slow.
      tools: [
        { name: 'dump', args: { bytes: 2 * MIB } },
        { name: 'echo', args: { text: 'hi' } },
      ],
      failed: ['result-contract'],
      skipped: ['cancel-before-work', 'cancel-mid-output', 'cancel-subprocess'],
      why: 'dump answers 2 MiB without saying it is incomplete: over the 1 MiB result budget. Paused, the server blocks in write(); resumed, the answer arrives whole.',
    },
    expected: {
      findings: ['server-write-blocked', 'request-timed-out'],
      absentFindings: ['stdout-pollution', 'server-exited'],
      metrics: ['stdoutBytes', 'stderrBytes', 'cancellationsSent'],
      // The stop ladder drains again, so the response, stuck in the pipe, arrives after the
      // timeout's cancellation: late, not lost.
      requestStatus: 'late',
    },
  },
  {
    id: 'slow-producer',
    title: 'Slow producer that honours cancellation',
    lesson:
      'A long tool that reports progress and stops when asked. The cancellation notification reaches the SDK, which aborts the AbortSignal handed to the tool; the producer loop checks that signal every step and stops, so no more progress is sent and no response follows. The proof that cancelling worked is the next small request on the same session answering at once.',
    implementation: 'sdk',
    tools: ['produce', 'echo'],
    knobs: [
      knob('steps', 50, 'count', 'Default number of steps of produce'),
      knob('delay-ms', 100, 'ms', 'Default delay between steps'),
    ],
    steps: [
      'Call produce and watch progress notifications arrive every 100 ms.',
      'Cancel the request: progress stops and no response arrives.',
      'Send ping (or echo): it answers immediately — the session recovered.',
    ],
    probe: {
      call: 'produce',
      args: { steps: 50, delayMs: 100 },
      cancelAfterMs: 500,
      timeoutMs: 15000,
    },
    check: {
      tools: [
        { name: 'produce', args: { steps: 6, delayMs: 100 }, slow: true },
        { name: 'echo', args: { text: 'hi' } },
      ],
      failed: [],
      skipped: ['cancel-subprocess'],
      why: 'produce stops at once when cancelled, before its work or in its middle, and ping answers fast after it.',
    },
    expected: {
      findings: [],
      absentFindings: ['cancel-ignored', 'slow-recovery', 'request-timed-out', 'server-exited'],
      metrics: ['cancellationsSent'],
      requestStatus: 'cancelled',
    },
  },
  {
    id: 'ignores-cancel',
    title: 'Producer that ignores cancellation',
    lesson:
      'Same tool as slow-producer, but the server throws cancellations away: it keeps sending progress for a request the host gave up on and finally answers it anyway. A host must treat that answer as late — show it, never crash on it — and a timeout in a UI is not a cancellation: the work only stops when the cancellation reaches the producer.',
    implementation: 'sdk',
    tools: ['produce', 'echo'],
    knobs: [
      knob('steps', 30, 'count', 'Default number of steps of produce'),
      knob('delay-ms', 100, 'ms', 'Default delay between steps'),
    ],
    steps: [
      'Call produce, then cancel it after a few progress notifications.',
      'Watch progress keep coming for the cancelled request.',
      'About three seconds later the response arrives and is marked late.',
    ],
    probe: {
      call: 'produce',
      args: { steps: 30, delayMs: 100 },
      cancelAfterMs: 500,
      timeoutMs: 15000,
    },
    check: {
      tools: [
        { name: 'produce', args: { steps: 6, delayMs: 100 }, slow: true },
        { name: 'echo', args: { text: 'hi' } },
      ],
      failed: ['cancel-before-work', 'cancel-mid-output'],
      skipped: ['cancel-subprocess'],
      why: 'produce keeps reporting progress after each cancellation and answers late (cancel-ignored).',
    },
    expected: {
      findings: ['cancel-ignored'],
      absentFindings: ['server-exited', 'stdout-pollution'],
      metrics: ['cancellationsSent', 'lateResponses'],
      requestStatus: 'late',
    },
  },
  {
    id: 'cpu-bound',
    title: 'CPU-bound tool that blocks the event loop',
    lesson:
      "The crunch tool computes for six seconds in one synchronous loop. In Node (as in a Python server on its only thread) that loop is the whole server: while it runs nothing reads stdin, so the host's cancellation, a ping, even stdin closing wait unread in the pipe. From outside it looks like a hung server — no bytes, no answer — but the process is on the CPU at 100 % of a core, and that is what tells it apart from a server blocked in write() or one whose answer sits in a buffer. When the loop ends the answer goes out anyway: the cancellation is only read after it. The fix is to keep heavy work off the event loop (a worker thread, a child process) or to cut it into slices that yield (await setImmediate) and check the request's AbortSignal between them.",
    implementation: 'sdk',
    tools: ['crunch', 'echo'],
    knobs: [knob('ms', 6000, 'ms', 'Default compute time of crunch')],
    steps: [
      'Call crunch: no bytes, no answer; the process panel shows the server running at ~100 % CPU.',
      'Cancel it and send ping: neither is read until the loop ends, then the answer arrives anyway, late.',
      'Call crunch {ms: 300}: a short burst answers normally.',
    ],
    probe: {
      call: 'crunch',
      // Longer than the whole probe, so the status is always 'timed-out': the call times out at
      // ~5 s, the recovery ping is not read, the stop ladder closes stdin at ~6 s (not read
      // either) and its SIGTERM ends the server at ~7 s, mid-loop. With the 6 s default the
      // answer could race that SIGTERM on a slow machine and make the status 'late'.
      args: { ms: 10_000 },
      // 6 s, not less: server-busy needs 2 s of owed silence on CPU after a start-up that
      // takes up to a second on a loaded machine.
      timeoutMs: 6000,
    },
    check: {
      tools: [
        { name: 'crunch', args: { ms: 2500 }, slow: true },
        { name: 'echo', args: { text: 'hi' } },
      ],
      failed: ['cancel-before-work', 'stdin-while-writing'],
      skipped: ['cancel-mid-output', 'cancel-subprocess'],
      why: 'While crunch computes, nothing reads stdin: a cancellation and the recovery ping wait (slow-recovery) and the answer comes late (cancel-ignored); a 1 MiB request waits in the pipe (stdin-blocked). crunch writes nothing before its answer: no mid-output case.',
    },
    expected: {
      // slow-recovery: the recovery ping waits unread in stdin behind the loop.
      findings: ['server-busy', 'request-timed-out', 'slow-recovery'],
      absentFindings: [
        'server-output-buffered',
        'subprocess-blocked',
        'server-write-blocked',
        'stdout-pollution',
      ],
      metrics: ['cancellationsSent'],
      requestStatus: 'timed-out',
      exit: { code: null, signal: 'SIGTERM' },
    },
  },
  {
    id: 'subprocess-producer',
    title: 'Tool that runs a command with huge output',
    lesson:
      'The run tool starts a child process that prints tens of megabytes. The server drains all of it (a child whose pipe is not read blocks exactly like an MCP server whose stdout is not read) but keeps only a bounded head and tail, and says in its result that the middle was dropped and how much there was. Cancelling the request kills the child, so nothing keeps running for an answer nobody wants.',
    implementation: 'sdk',
    tools: ['run', 'echo'],
    knobs: [
      knob('bytes', 50_000_000, 'bytes', 'Output size of the child command'),
      knob('keep', 4096, 'bytes', 'Bytes kept from the head and from the tail of the output'),
      knob('chunk-bytes', 65536, 'bytes', 'Size of each write of the child'),
      knob('chunk-delay-ms', 0, 'ms', 'Pause of the child between writes (slows it down)'),
    ],
    steps: [
      'Call run: after a moment a small result arrives with head, tail, totalBytes and truncated=true.',
      'Run with --chunk-delay-ms=5, call run and cancel it: stderr reports the child was killed.',
      'Send ping: it answers at once.',
    ],
    probe: {
      call: 'run',
      args: {},
      knobs: { 'chunk-delay-ms': '5' },
      cancelAfterMs: 500,
      timeoutMs: 15000,
    },
    check: {
      knobs: { bytes: '16000000', 'chunk-delay-ms': '5' },
      tools: [
        { name: 'run', slow: true, subprocess: true },
        { name: 'echo', args: { text: 'hi' } },
      ],
      failed: [],
      skipped: ['cancel-mid-output'],
      why: 'Each cancellation kills the child (even one read with the request, before the tool ran); run sends nothing before its answer, so there is no mid-output case.',
    },
    expected: {
      findings: [],
      absentFindings: ['cancel-ignored', 'slow-recovery', 'server-exited', 'oversize-frame'],
      metrics: ['cancellationsSent', 'stderrBytes'],
      requestStatus: 'cancelled',
    },
  },
  {
    id: 'subprocess-blocked',
    title: "Tool that stops reading its child's output",
    lesson:
      "The broken twin of subprocess-producer. The run tool starts a child that prints 50 MB, reads the first 64 KiB (all it wanted) and then waits for the child to exit. The child never exits: its output pipe holds only so much, so its next write() blocks until someone reads, and the server has stopped reading. The MCP pipe shows nothing wrong — the server still answers ping, its stdout is just quiet — yet the call never ends, and cancelling it kills nothing. The cause is one level down: a process under the server blocked in write() on a full pipe that only the server could drain. The fix is what subprocess-producer does: read the child's output to the end (keep a bounded head and tail, drop the rest), or kill the child once you have what you need, and kill it on cancellation.",
    implementation: 'sdk',
    tools: ['run', 'echo'],
    knobs: [
      knob('bytes', 50_000_000, 'bytes', 'Output size of the child command'),
      knob('read-bytes', 65536, 'bytes', 'Bytes the server reads before it stops reading'),
    ],
    steps: [
      'Call run: stderr says 65536 bytes were read and the server waits for the child; no answer comes.',
      'Open the process panel: the child (node -e …) is blocked in write(1) on a full pipe; the server is idle.',
      'Cancel the request: stderr says so, the child stays blocked, and ping still answers at once.',
      'Call run {bytes: 65536}: the output fits, the child exits and run answers — small outputs hide the bug.',
      'Stop the session: the signal to the process group ends the child with the server.',
    ],
    // 6 s: the call stays owed past the 1 s budget even after a slow start-up.
    probe: { call: 'run', args: {}, timeoutMs: 6000 },
    check: {
      tools: [
        // Named: a child that starts slowly on a loaded machine is still the one to cancel.
        { name: 'run', timeoutMs: 5000, subprocess: true },
        { name: 'echo', args: { text: 'hi' } },
      ],
      failed: ['tool-calls', 'cancel-before-work', 'cancel-subprocess'],
      skipped: ['cancel-mid-output'],
      why: 'run never answers: its child is blocked writing a pipe the server stopped reading (subprocess-blocked), and a cancellation leaves that child running.',
    },
    expected: {
      findings: ['subprocess-blocked', 'request-timed-out'],
      absentFindings: [
        'server-output-buffered',
        'server-busy',
        'server-write-blocked',
        'stdout-pollution',
        'slow-recovery',
        'processes-left',
      ],
      metrics: ['cancellationsSent', 'stderrBytes'],
      requestStatus: 'timed-out',
    },
  },
  ...TRANSPORT_DEMOS,
];

export function findDemo(id: string): DemoScenario | undefined {
  return DEMO_CATALOG.find((scenario) => scenario.id === id);
}
