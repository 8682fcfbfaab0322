/**
 * A stdio server transport that writes each message itself, in fixed-size chunks, waiting
 * for 'drain' whenever stdout asks to (the SDK's own transport hands a whole 8 MiB line to
 * one write() and leaves it to Node's buffer). Sends are queued: with chunked writes, two
 * messages in flight at once would interleave their bytes and corrupt both frames.
 */

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { writeChunked } from './stdio-writer.js';

export interface ChunkedTransportOptions {
  chunkBytes: number;
  /** Called when a write returns false (the pipe is full and the host is not reading). */
  onBackpressure: () => void;
}

export class ChunkedStdioServerTransport extends StdioServerTransport {
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly options: ChunkedTransportOptions) {
    super();
  }

  override send(message: JSONRPCMessage): Promise<void> {
    const line = serializeMessage(message);
    const next = this.queue.then(() =>
      writeChunked(process.stdout, line, {
        chunkBytes: this.options.chunkBytes,
        onBackpressure: this.options.onBackpressure,
      }),
    );
    // Keep the queue alive after a failed write; the caller still sees the error.
    this.queue = next.catch(() => undefined);
    return next;
  }
}
