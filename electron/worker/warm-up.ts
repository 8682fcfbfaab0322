/**
 * Warm-up: the read path run once on made-up MCP traffic before the server is spawned, so that
 * a burst at the start of a session meets code V8 has already optimized.
 *
 * Owns: nothing that outlives the call (its own stdout reader, classifier and outbox, dropped
 * after). Fed by: the transport worker, once, before the spawn. Listens: `post` hands each batch
 * to main as a `warm` message, which main decodes and drops, so its decoder warms too.
 *
 * V8 optimizes a function only after thousands of calls: cold, a flood of 200,000 small lines
 * ran its first part in the interpreter while V8's compiler threads took cores from the worker.
 * Warmed, it took 64-70 ms end to end instead of 78-86 (README "Benchmarks"), for ~40 ms and
 * ~65 ms of CPU at each session start. Before the spawn, not during the server's start-up: a
 * server that wrote at once met the warm-up half done (an 8 MiB frame: 19 -> 26 ms). The lines
 * are the kinds a server sends (tool results, empty results, errors, lists, progress and log
 * notifications, a request of its own), of varied lengths, so that no one shape is learned;
 * 3,000 lines warmed too little (77 ms), as did the worker without main's decoder (71 ms).
 */
import type { PostedBatch } from './outbox.js';
import { Outbox } from './outbox.js';
import { StdoutReader } from './stdout-reader.js';

export const WARM_LINES = 6000;
/** Pipe-read-sized pieces, as the real stream arrives. */
const CHUNK = 64 * 1024;

function toolResult(id: number, text: string): string {
  return `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"${text}"}],"isError":false}}`;
}

/** Line `i` of the made-up traffic. */
export function warmLine(i: number): string {
  const pad = 'w'.repeat(20 + ((i * 37) % 300));
  switch (i % 8) {
    case 0:
    case 4:
      return toolResult(i, pad);
    case 1:
      return `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${i % 3},"progress":${i},"total":${WARM_LINES},"message":"${pad.slice(0, 30)}"}}`;
    case 2:
      return `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"warm","data":"${pad}"}}`;
    case 3:
      return `{"jsonrpc":"2.0","id":${i},"result":{}}`;
    case 5:
      return `{"jsonrpc":"2.0","id":"w-${i}","result":{"tools":[{"name":"t${i}","description":"${pad.slice(0, 60)}","inputSchema":{"type":"object"}}]}}`;
    case 6:
      return `{"jsonrpc":"2.0","id":${i},"error":{"code":-32602,"message":"${pad.slice(0, 40)}"}}`;
    default:
      return `{"jsonrpc":"2.0","id":${i},"method":"ping"}`;
  }
}

/** The made-up traffic, one line per message. */
export function warmTraffic(lines = WARM_LINES): Buffer {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(warmLine(i));
  return Buffer.from(`${out.join('\n')}\n`);
}

export interface WarmUpOptions {
  creditFrames: number;
  creditBytes: number;
  /** Each batch the made-up traffic makes (main decodes it and drops it). */
  post(batch: PostedBatch): void;
  lines?: number;
}

/** Runs the made-up traffic through a stdout reader of its own; returns the frames it made. */
export function warmUp(opts: WarmUpOptions): number {
  let frames = 0;
  const outbox: Outbox = new Outbox({
    creditFrames: opts.creditFrames,
    creditBytes: opts.creditBytes,
    spillMaxBytes: Number.POSITIVE_INFINITY,
    now: () => performance.now(),
    post: (batch) => {
      frames += batch.metas.n;
      opts.post(batch);
    },
    onOverload: () => true,
    onSeal: (chunk) => reader.sealed(chunk),
  });
  const reader = new StdoutReader(1024 * 1024, outbox, () => {});
  const data = warmTraffic(opts.lines);
  for (let at = 0; at < data.length; at += CHUNK) {
    // A pipe read owns its memory: so does each piece here (batches transfer it).
    const piece = Buffer.allocUnsafeSlow(Math.min(CHUNK, data.length - at));
    data.copy(piece, 0, at, at + piece.length);
    // A time with a fraction, as a session's are: frames' `t` stays a double field in V8's eyes
    // (with 0, main's decoder was optimized for small integers and undone by the first real frame).
    reader.push(piece, performance.now());
    outbox.flush();
  }
  reader.end();
  outbox.flush();
  return frames;
}
