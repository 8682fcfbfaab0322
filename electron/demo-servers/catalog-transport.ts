/**
 * Demo catalog entries where the stdio transport or the server process misbehaves: a stderr
 * flood, non-JSON and malformed lines on stdout, hostile payloads, the frame limit, a crash
 * mid-frame, a server that ignores the stop signals or stops reading stdin, one whose answers
 * sit in a block-buffered stdout, a notification flood and server-to-client requests.
 * catalog.ts spreads them into DEMO_CATALOG after its own entries (tool results and
 * cancellation), in catalog order. Also owns the entry builders both files use (`knob`).
 */

import type { DemoKnob, DemoScenario } from '../../shared/demo-catalog.js';
import { MIB } from '../../shared/units.js';

export const knob = (
  name: string,
  def: string | number | boolean,
  unit: string,
  description: string,
) => ({ name, default: String(def), unit, description }) satisfies DemoKnob;

export const TRANSPORT_DEMOS: readonly DemoScenario[] = [
  {
    id: 'stderr-flood',
    title: 'Megabytes of stderr while stdout is quiet',
    lesson:
      'Logs belong on stderr, but stderr is a pipe too. This server writes 10 MiB of log lines at start-up while its stdout is idle. A host that reads only stdout leaves the stderr pipe full after 64 KiB: this server\'s logging then waits for "drain", and a server that logs synchronously (as many do) freezes outright, which looks like a dead server. A host must drain stderr separately (into a bounded ring) so the server keeps answering.',
    implementation: 'sdk',
    tools: ['flood', 'echo'],
    knobs: [
      knob('bytes', 10 * MIB, 'bytes', 'Bytes of stderr written at start-up (0 = none)'),
      knob('chunk-bytes', 65536, 'bytes', 'Size of each stderr write'),
    ],
    steps: [
      'Start the server: stderr bytes climb to 10 MiB, stdout stays quiet.',
      'Call echo: it answers immediately, the flood did not block stdout.',
      'Call flood {bytes} to repeat it on demand.',
    ],
    probe: { call: 'echo', args: { text: 'still here' }, timeoutMs: 10000 },
    check: {
      knobs: { bytes: String(MIB) },
      tools: [
        { name: 'flood', args: { bytes: MIB } },
        { name: 'echo', args: { text: 'still here' } },
      ],
      failed: ['stderr-slow'],
      skipped: ['cancel-before-work', 'cancel-mid-output', 'cancel-subprocess'],
      why: 'flood awaits its 1 MiB of stderr: with stderr read at 64 KiB/s its answer comes seconds late (echo still answers).',
    },
    expected: {
      findings: [],
      absentFindings: ['server-write-blocked', 'request-timed-out', 'server-exited'],
      metrics: ['stderrBytes'],
      requestStatus: 'completed',
    },
  },
  {
    id: 'stdout-pollution',
    title: 'Banner and console.log on stdout',
    lesson:
      'stdout is the protocol channel: every line on it must be a JSON-RPC message. This server prints a banner at start-up and a stray console.log line whenever a tool runs, the most common bug in real servers. Lenient clients skip such lines silently, strict ones drop the session; either way the text is pollution and must be shown as such, with its offset.',
    implementation: 'sdk',
    tools: ['echo'],
    knobs: [
      knob('banner', true, 'boolean', 'Print a banner line on stdout at start-up'),
      knob('lines', 1, 'count', 'Stray console.log lines per tool call'),
    ],
    steps: [
      'Start the server: the banner appears as a non-JSON line before initialize is answered.',
      'Call echo: a "tool called" log line appears on stdout next to the response.',
    ],
    probe: { call: 'echo', args: { text: 'hi' }, timeoutMs: 5000 },
    check: {
      tools: [{ name: 'echo', args: { text: 'hi' } }],
      failed: ['stdout-clean'],
      skipped: ['cancel-before-work', 'cancel-mid-output', 'cancel-subprocess'],
      why: 'A banner at start-up and a log line per call on stdout.',
    },
    expected: {
      findings: ['stdout-pollution'],
      absentFindings: ['server-exited', 'request-timed-out'],
      metrics: ['parseErrors'],
      requestStatus: 'completed',
    },
  },
  {
    id: 'malformed-json',
    title: 'An invalid JSON line among valid ones',
    lesson:
      'When broken is called, the server writes a line that starts like a JSON-RPC message but is cut off and never closed, then answers normally. A host must count the bad line as a parse error and keep framing on the next newline: one broken line must not lose the messages after it.',
    implementation: 'sdk',
    tools: ['broken', 'echo'],
    knobs: [knob('lines', 1, 'count', 'Invalid lines written per call of broken')],
    steps: [
      'Call broken: a parse error is counted, with the offset of the bad line.',
      'The response to broken still arrives, and echo keeps working.',
    ],
    probe: { call: 'broken', args: {}, timeoutMs: 5000 },
    check: {
      tools: [{ name: 'broken' }, { name: 'echo', args: { text: 'hi' } }],
      failed: ['stdout-clean'],
      skipped: ['cancel-before-work', 'cancel-mid-output', 'cancel-subprocess'],
      why: 'broken writes a JSON line cut short before its answer.',
    },
    expected: {
      findings: ['stdout-pollution'],
      absentFindings: ['server-exited', 'request-timed-out'],
      metrics: ['parseErrors'],
      requestStatus: 'completed',
    },
  },
  {
    id: 'hostile-payloads',
    title: 'Hostile but valid payloads',
    lesson:
      'Everything here is valid JSON-RPC, yet each payload breaks some naive host: quotes and backslashes that need escaping, multibyte text whose byte length differs from its string length, U+2028 and U+2029 which are line separators to some readers but legal raw in JSON strings, a long string with no spaces to wrap, thousands of tiny content blocks, and one giant field. The framer must split on the newline byte only and count bytes, never characters.',
    implementation: 'sdk',
    tools: ['payload', 'echo'],
    knobs: [
      knob('long-bytes', 262144, 'bytes', 'Length of the string without spaces'),
      knob('blocks', 2000, 'count', 'Number of small content blocks'),
      knob('giant-bytes', MIB, 'bytes', 'Size of the one giant field'),
    ],
    steps: [
      'Call payload {kind: "line-separators"}: the frame arrives whole despite U+2028.',
      'Call payload {kind: "multibyte"}: frame bytes exceed the character count.',
      'Call payload {kind: "all"} and page through the large frame in the viewer.',
    ],
    probe: { call: 'payload', args: { kind: 'all' }, timeoutMs: 10000 },
    check: {
      tools: [
        { name: 'payload', args: { kind: 'all' } },
        { name: 'echo', args: { text: 'hi' } },
      ],
      failed: ['result-contract'],
      skipped: ['cancel-before-work', 'cancel-mid-output', 'cancel-subprocess'],
      why: 'The payloads all arrive intact (U+2028, multibyte, 2,000 blocks), but together they are over the 1 MiB result budget.',
    },
    expected: {
      findings: [],
      absentFindings: ['stdout-pollution', 'invalid-message', 'oversize-frame', 'server-exited'],
      metrics: ['largestFrameBytes', 'frames'],
      requestStatus: 'completed',
    },
  },
  {
    id: 'frame-limit',
    title: 'A response just under and one just over the frame limit',
    lesson:
      'The transport limit is a number of bytes of one whole serialized message, enforced before parsing. The under tool answers with a line of exactly the limit, the over tool with one byte more (newline not counted). The first must be delivered, the second discarded to its newline and reported — and the session must go on. Its request fails at once (its id is read from the last bytes of the discarded line): the answer is lost, which is why tools must keep results well below the limit.',
    implementation: 'raw',
    tools: ['sized', 'under', 'over', 'echo'],
    knobs: [
      knob('limit', MIB, 'bytes', 'The frame limit the under/over tools aim at'),
      knob('under-by', 0, 'bytes', 'How far below the limit the under response is'),
      knob('over-by', 1, 'bytes', 'How far above the limit the over response is'),
    ],
    steps: [
      'Set the max frame size to 1048576 bytes.',
      'Call under: the response (exactly 1048576 bytes) is delivered.',
      'Call over: it is discarded as oversize, counted, its request fails at once, and echo still answers.',
    ],
    probe: { call: 'over', args: {}, maxFrameBytes: MIB, onOversize: 'discard', timeoutMs: 3000 },
    check: {
      tools: [{ name: 'under' }, { name: 'over' }, { name: 'echo', args: { text: 'hi' } }],
      failed: ['result-contract'],
      skipped: ['cancel-before-work', 'cancel-mid-output', 'cancel-subprocess'],
      why: 'under answers a line of exactly 1 MiB, within the budget; over answers one byte more, over it.',
    },
    expected: {
      findings: ['oversize-frame'],
      absentFindings: ['server-exited', 'stdout-pollution', 'request-timed-out'],
      metrics: ['oversizeFrames'],
      requestStatus: 'failed',
    },
  },
  {
    id: 'crash-mid-response',
    title: 'Crash in the middle of a response',
    lesson:
      'The crash tool writes the first half of its response line and the process exits with code 3. The bytes already sent can never become a message: a host must report them as truncated at exit, never deliver them, and mark the process exit with its code.',
    implementation: 'sdk',
    tools: ['crash', 'echo'],
    knobs: [
      knob('bytes', 65536, 'bytes', 'Size of the text of the (half-sent) result'),
      knob('exit-code', 3, 'code', 'Exit code of the crash'),
    ],
    steps: [
      'Call crash: stdout stops mid-frame and the process exits with code 3.',
      'The partial bytes are reported as truncated at exit, never as a message.',
    ],
    probe: { call: 'crash', args: {}, timeoutMs: 5000 },
    check: {
      tools: [{ name: 'echo', args: { text: 'hi' } }, { name: 'crash' }],
      failed: ['tool-calls'],
      skipped: ['cancel-before-work', 'cancel-mid-output', 'cancel-subprocess'],
      why: 'crash exits mid-answer (truncated-at-exit, server-exited); the cases after it run echo on fresh servers.',
    },
    expected: {
      findings: ['truncated-at-exit', 'server-exited'],
      absentFindings: ['stdout-pollution'],
      metrics: ['partialBytesAtEof', 'processExits'],
      exit: { code: 3, signal: null },
    },
  },
  {
    id: 'ignores-sigterm',
    title: 'Ignores EOF and SIGTERM',
    lesson:
      'Closing stdin is the polite way to ask a stdio server to stop, and SIGTERM the firm one. This server ignores both and stays alive, so only the last rung of the stop ladder (SIGKILL to the process group) ends it. With --grandchild=true it also starts a sleep that holds its stdout open: killing only the direct child would leave the pipe open and the host waiting.',
    implementation: 'sdk',
    tools: ['echo'],
    knobs: [knob('grandchild', false, 'boolean', 'Spawn `sleep 300` that inherits stdout')],
    steps: [
      'Start the server, then stop the session.',
      'Watch the ladder: stdin closed (ignored), SIGTERM (ignored), SIGKILL after the grace period.',
      'With --grandchild=true, check no sleep is left behind after the stop.',
    ],
    probe: { timeoutMs: 5000 },
    check: {
      tools: [{ name: 'echo', args: { text: 'hi' } }],
      failed: ['shutdown'],
      skipped: ['cancel-before-work', 'cancel-mid-output', 'cancel-subprocess'],
      why: 'The server ignores stdin EOF and SIGTERM: only SIGKILL ends it.',
    },
    expected: {
      findings: [],
      absentFindings: ['stdout-pollution'],
      metrics: ['processExits'],
      exit: { code: null, signal: 'SIGKILL' },
    },
  },
  {
    id: 'stops-reading-stdin',
    title: 'Stops reading stdin',
    lesson:
      'After the handshake the server stops reading its input but stays alive. Small requests still fit in the 64 KiB stdin pipe and simply go unanswered; a large one fills the pipe and the host\'s write waits for "drain" forever. The host must not hang on that write: its reader, timers and stop ladder must keep working, and the stuck write must be visible.',
    implementation: 'sdk',
    tools: ['echo'],
    knobs: [
      knob(
        'stop-after',
        'tools/list',
        'method',
        'Stop reading after this message: tools/list or initialized',
      ),
    ],
    steps: [
      'Start the server: initialize and tools/list are answered.',
      'Call echo with a 1 MiB pad argument: stdin bytes stop at about 64 KiB and the write waits.',
      'The request times out; stop the session — it ends through the ladder.',
    ],
    probe: { call: 'echo', args: { text: 'hello' }, argsPadBytes: MIB, timeoutMs: 3000 },
    check: {
      tools: [{ name: 'echo', args: { text: 'hi' }, timeoutMs: 3000 }],
      failed: ['tool-calls', 'cancel-before-work', 'stdin-while-writing', 'shutdown'],
      skipped: ['result-contract', 'paused-host', 'cancel-mid-output', 'cancel-subprocess'],
      why: 'After tools/list nothing more is read: echo is never answered, a cancellation and the recovery ping never arrive, a 1 MiB request waits in the pipe, and stdin EOF is never seen.',
    },
    expected: {
      findings: ['stdin-blocked', 'request-timed-out'],
      absentFindings: ['stdout-pollution'],
      metrics: ['stdinBytes'],
      requestStatus: 'timed-out',
    },
  },
  {
    id: 'buffered-stdout',
    title: 'Answers stuck in a block-buffered stdout',
    lesson:
      'This server prints its tool results the way C and Python programs do when stdout is a pipe rather than a terminal: into an 8 KiB stdio buffer that reaches the pipe only when it is full or when the program exits. The framework flushes its own replies, so initialize, tools/list and ping answer at once; the tool\'s print does not. Call answer and stderr says "answered request 3 (99 bytes)" while the pipe shows nothing: the answer sits in the server\'s memory. It is not a hang and not a full pipe: the server is idle, blocked in read() on stdin waiting for the next request, using no CPU. The request times out; only when the session stops and stdin closes does the program exit, flush, and the answer appear. The fix is to flush: run Python with -u (or PYTHONUNBUFFERED=1), or print(..., flush=True); in C, fflush(stdout) after each message, or setvbuf(stdout, NULL, _IOLBF, 0) once at start.',
    implementation: 'raw',
    tools: ['answer'],
    knobs: [
      knob(
        'flush-handshake',
        true,
        'boolean',
        "Flush the framework's replies (initialize, tools/list, ping)",
      ),
      knob(
        'buffer-bytes',
        8192,
        'bytes',
        'Size of the stdout buffer of tool output (0 = unbuffered)',
      ),
    ],
    steps: [
      'Call answer: stderr says "answered request N", no bytes arrive and the request times out.',
      'Look at the process panel: the server sleeps in read() on stdin with no CPU, stdout silent.',
      'Stop the session: stdin closes, the server flushes, and the answer arrives only now.',
      'Call answer some 80 times: when the buffer fills, exactly 8192 bytes arrive at once — 80 answers and the start of the next, cut mid-message.',
      'Run with --buffer-bytes=0 (what python -u does): every answer arrives at once.',
      'Run with --flush-handshake=false: even initialize stays in the buffer and the handshake fails.',
    ],
    // 6 s: the answer must be owed past the 2 s budget even after a slow start-up.
    probe: { call: 'answer', args: { text: 'hello' }, timeoutMs: 6000 },
    check: {
      tools: [{ name: 'answer', args: { text: 'hello' }, timeoutMs: 3000 }],
      failed: ['tool-calls', 'buffered-output'],
      skipped: ['paused-host', 'cancel-mid-output', 'cancel-subprocess'],
      why: 'The answer sits in an 8 KiB stdout buffer until stdin closes (server-output-buffered); nothing is answered to hold back behind a paused reader.',
    },
    expected: {
      findings: ['server-output-buffered', 'request-timed-out'],
      absentFindings: [
        'cancel-ignored',
        'stdout-pollution',
        'server-write-blocked',
        'server-busy',
        'subprocess-blocked',
        'slow-recovery',
        'server-exited',
      ],
      metrics: ['cancellationsSent', 'stderrBytes'],
      // The answer arrives only after the stop ladder closed stdin: owed to a buffer, not
      // late from a server that kept working.
      requestStatus: 'timed-out',
      exit: { code: 0, signal: null },
    },
  },
  {
    id: 'notification-flood',
    title: 'Tens of thousands of notifications',
    lesson:
      'The flood tool sends notifications as fast as the pipe takes them — logging messages or progress — before it answers. Each one is small, so the pipe is never the problem: the problem is a host that handles every message on its slow path (one UI update, one log line each). Bytes keep arriving while complete messages pile up waiting for the consumer; the host must drain independently, batch, and rate-limit rendering.',
    implementation: 'sdk',
    tools: ['flood', 'echo'],
    knobs: [
      knob('count', 50000, 'count', 'Default number of notifications per flood'),
      knob('kind', 'logging', 'kind', 'Default kind: logging or progress'),
      knob('payload-bytes', 64, 'bytes', 'Size of the text carried by each notification'),
    ],
    steps: [
      'Call flood: frames per second jump, stdout bytes climb steadily.',
      'Set a consumer delay of 2 ms: the dispatcher queue grows and its wait time climbs.',
      'Call flood {kind: "progress"} to see the progress renderer rate-limit.',
      'Call flood {count: 6000, mark: "needle", markAt: 5000}, then type needle in the frames filter with "in payloads" checked: the host finds it in the 5,000th notification.',
    ],
    probe: {
      call: 'flood',
      args: { count: 3000, kind: 'logging' },
      consumerDelayMs: 2,
      timeoutMs: 60000,
    },
    check: {
      tools: [
        { name: 'flood', args: { count: 5000 }, slow: true },
        // The largest answer (for the paused-host and stdin cases): a flood beside a 1 MiB
        // request would judge the machine's load as much as the server.
        { name: 'echo', args: { text: 'x'.repeat(400) } },
      ],
      failed: [],
      skipped: ['cancel-subprocess'],
      why: 'flood never checks its cancellation, but the SDK drops what it sends once the request is cancelled: nothing more reaches the pipe, and ping answers at once.',
    },
    expected: {
      findings: ['host-queue-stalled'],
      absentFindings: ['server-exited', 'stdout-pollution', 'invalid-message'],
      metrics: ['frames', 'dispatcherMaxDepth'],
      requestStatus: 'completed',
    },
  },
  {
    id: 'server-requests',
    title: 'Server-to-client requests',
    lesson:
      'MCP is two-way: right after the handshake this server asks the host ping, roots/list and sampling/createMessage. Each request needs an answer — {} for ping, a JSON-RPC error for what the host does not support — because a server that waits for a reply that never comes hangs just like a host that never reads. The last_replies tool and stderr report what the host answered.',
    implementation: 'sdk',
    tools: ['last_replies', 'echo'],
    knobs: [knob('timeout-ms', 5000, 'ms', 'How long the server waits for each answer')],
    steps: [
      'Start the server: three requests from the server appear right after initialized.',
      'Call last_replies: ping got {}, roots/list and sampling got an answer or an error.',
    ],
    probe: { call: 'last_replies', args: {}, timeoutMs: 10000 },
    check: {
      tools: [{ name: 'last_replies' }, { name: 'echo', args: { text: 'hi' } }],
      failed: [],
      skipped: ['cancel-before-work', 'cancel-mid-output', 'cancel-subprocess'],
      why: 'Its ping, roots/list and sampling requests are answered; every case that can run passes.',
    },
    expected: {
      findings: [],
      absentFindings: ['server-exited', 'stdout-pollution', 'invalid-message', 'request-timed-out'],
      metrics: ['stdinBytes', 'frames'],
      requestStatus: 'completed',
    },
  },
];
