/**
 * Demo `buffered-stdout`: a server written the way a C or Python program behaves when its
 * stdout is a pipe. It reads stdin with blocking read(0) calls (fs.readSync, never
 * process.stdin, which would make fd 0 non-blocking and hand it to the event loop) and prints
 * tool results into a userspace stdio buffer that reaches fd 1 only when it fills or at exit —
 * C stdio's full buffering (BUFSIZ = 8192 in glibc), Python's print() without flush. The
 * handshake replies bypass that buffer and are flushed at once, as a framework flushes its own
 * replies; so the session starts fine, the tool "answers" (its stderr log says so), and the
 * pipe shows nothing until stdin closes. Raw JSON-RPC: the SDK would write through Node's
 * stream, which never holds bytes back like this.
 */

import { readSync, writeSync } from 'node:fs';
import { readKnobs } from './lib/knobs.js';
import { DEFAULT_PROTOCOL_VERSION, KNOWN_PROTOCOL_VERSIONS } from './lib/raw-rpc.js';

const ID = 'buffered-stdout';
const knobs = readKnobs(ID);
const flushHandshake = knobs.bool('flush-handshake');
const bufferBytes = knobs.int('buffer-bytes');

type Json = Record<string, unknown>;
type JsonRpcId = string | number;

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Sleeps the whole thread (there is no event loop to return to). */
function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

function isAgain(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EAGAIN' || code === 'EWOULDBLOCK';
}

/** write(2) until every byte is out; blocks while the pipe is full, as C's write() does. */
function writeAll(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      // Only if someone made the fd non-blocking: wait a little, as a blocking write would.
      if (!isAgain(error)) throw error;
      sleepSync(5);
    }
  }
}

function log(message: string): void {
  writeAll(2, Buffer.from(`[${ID}] ${message}\n`, 'utf8'));
}

/**
 * A fully buffered output stream: bytes are copied in and written to the fd only when the
 * buffer is full or on flush() (exit). Size 0 means unbuffered (`python -u`, setvbuf _IONBF).
 */
class StdioBuffer {
  private readonly buffer: Buffer;
  private used = 0;

  constructor(
    private readonly fd: number,
    size: number,
  ) {
    this.buffer = Buffer.alloc(size);
  }

  write(data: Buffer): void {
    if (this.buffer.length === 0) {
      writeAll(this.fd, data);
      return;
    }
    let offset = 0;
    while (offset < data.length) {
      const copied = data.copy(this.buffer, this.used, offset);
      this.used += copied;
      offset += copied;
      if (this.used === this.buffer.length) this.flush();
    }
  }

  flush(): void {
    if (this.used === 0) return;
    writeAll(this.fd, this.buffer.subarray(0, this.used));
    this.used = 0;
  }

  get pendingBytes(): number {
    return this.used;
  }
}

const stdout = new StdioBuffer(1, bufferBytes);

/** A tool's output: print() into the stdio buffer, no flush. */
function print(message: Json): number {
  const line = Buffer.from(`${JSON.stringify(message)}\n`, 'utf8');
  stdout.write(line);
  return line.length - 1;
}

/**
 * The framework's own replies. With --flush-handshake they go to fd 1 at once, past the
 * buffer the tool prints into (a Python framework writing to sys.stdout.buffer and flushing
 * it does not push out what print() left in sys.stdout's text layer); without, they are
 * printed like everything else and even initialize is never answered.
 */
function frameworkReply(message: Json): void {
  if (!flushHandshake) {
    print(message);
    return;
  }
  writeAll(1, Buffer.from(`${JSON.stringify(message)}\n`, 'utf8'));
}

const reply = (id: JsonRpcId, result: Json): void => frameworkReply({ jsonrpc: '2.0', id, result });
const fail = (id: JsonRpcId | null, code: number, message: string): void =>
  frameworkReply({ jsonrpc: '2.0', id, error: { code, message } });

const TOOL = {
  name: 'answer',
  description: 'Answers at once with a short text; the answer is printed, never flushed.',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', description: 'Text to put in the answer' } },
  },
};

function callTool(id: JsonRpcId, params: Json): void {
  if (params.name !== TOOL.name) {
    fail(id, -32602, `Unknown tool: ${String(params.name)}`);
    return;
  }
  const args = isObject(params.arguments) ? params.arguments : {};
  const text = typeof args.text === 'string' ? args.text : 'the answer is 42';
  const bytes = print({
    jsonrpc: '2.0',
    id,
    result: { content: [{ type: 'text', text: `answer to request ${String(id)}: ${text}` }] },
  });
  log(`answered request ${String(id)} (${bytes} bytes)`);
}

function handle(message: Json): void {
  const { method, id } = message;
  const params = isObject(message.params) ? message.params : {};
  if (typeof method !== 'string') return;
  const isRequest = typeof id === 'string' || typeof id === 'number';
  switch (method) {
    case 'initialize': {
      if (!isRequest) return;
      const asked = params.protocolVersion;
      const known = typeof asked === 'string' && KNOWN_PROTOCOL_VERSIONS.includes(asked);
      reply(id, {
        protocolVersion: known ? asked : DEFAULT_PROTOCOL_VERSION,
        capabilities: { tools: {} },
        serverInfo: { name: `pipescope-demo-${ID}`, version: '1.0.0' },
      });
      return;
    }
    case 'notifications/initialized':
      return;
    case 'notifications/cancelled':
      // From where the server stands the request is done: it printed the answer. A blocking
      // server only reads this once it is idle again, and has nothing left to stop.
      log(`cancellation of request ${String(params.requestId)}: already answered, ignored`);
      return;
    case 'ping':
      if (isRequest) reply(id, {});
      return;
    case 'tools/list':
      if (isRequest) reply(id, { tools: [TOOL] });
      return;
    case 'tools/call':
      if (isRequest) callTool(id, params);
      return;
    default:
      if (isRequest) fail(id, -32601, `Method not found: ${method}`);
  }
}

function handleLine(bytes: Buffer): void {
  const text = bytes.toString('utf8').replace(/\r$/, '');
  if (text.trim() === '') return;
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    fail(null, -32700, 'Parse error');
    return;
  }
  if (isObject(message)) handle(message);
  else fail(null, -32600, 'Invalid request (batches are not supported)');
}

/** One blocking read(0); 0 at end of input. */
function readStdin(chunk: Buffer): number {
  for (;;) {
    try {
      return readSync(0, chunk, 0, chunk.length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EOF') return 0;
      if (!isAgain(error)) throw error;
      sleepSync(10); // fd 0 turned out non-blocking: poll it as a blocking read would wait
    }
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function main(): void {
  const mode = bufferBytes === 0 ? 'unbuffered' : `block-buffered (${bufferBytes} bytes)`;
  log(`ready (pid ${process.pid}); tool output is ${mode}`);
  const chunk = Buffer.alloc(64 * 1024);
  let pending: Buffer[] = [];
  for (let n = readStdin(chunk); n > 0; n = readStdin(chunk)) {
    const data = chunk.subarray(0, n);
    let start = 0;
    for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a, start)) {
      pending.push(data.subarray(start, nl));
      handleLine(Buffer.concat(pending));
      pending = [];
      start = nl + 1;
    }
    // Copied: the next read reuses `chunk`.
    if (start < data.length) pending.push(Buffer.from(data.subarray(start)));
  }
  // exit() flushes stdio: only now do the printed answers reach the pipe.
  const held = stdout.pendingBytes;
  stdout.flush();
  log(`stdin closed, flushed ${held} buffered bytes, exiting`);
  process.exit(0);
}

main();
