/**
 * The HostApi's handlers, one per channel. Each domain registers its own (handlers/*.ts, the
 * way Bruno's ipc/ folders do); the registry refuses a second handler for a channel and says
 * which channels have none, so a channel added to shared/host-api.ts without a handler fails
 * at start-up instead of answering EBADCHANNEL at the first click.
 *
 * Calls arrive validated (HostCall: parseHostCall ran where they entered the Node side); a
 * handler's throw comes back as an EINTERNAL Result, never as an exception.
 */
import {
  type ChannelPayload,
  type ChannelResponses,
  HOST_CHANNELS,
  type HostCall,
  type HostChannel,
} from '../../../shared/host-api.js';
import { err, type Result } from '../../../shared/result.js';

export type Handler<C extends HostChannel> = (
  payload: ChannelPayload<C>,
) => Promise<Result<ChannelResponses[C]>>;

export class HandlerRegistry {
  private readonly handlers = new Map<HostChannel, Handler<never>>();

  on<C extends HostChannel>(channel: C, handler: Handler<C>): void {
    if (this.handlers.has(channel)) throw new Error(`${channel} has a handler already`);
    this.handlers.set(channel, handler as Handler<never>);
  }

  /** Channels of HOST_CHANNELS nobody registered. */
  missing(): HostChannel[] {
    return (Object.keys(HOST_CHANNELS) as HostChannel[]).filter((c) => !this.handlers.has(c));
  }

  /** Throws unless every channel has its handler (checked once, when the host is built). */
  assertComplete(): void {
    const missing = this.missing();
    if (missing.length > 0) throw new Error(`no handler for ${missing.join(', ')}`);
  }

  async dispatch(call: HostCall): Promise<Result<unknown>> {
    const handler = this.handlers.get(call.channel) as Handler<typeof call.channel> | undefined;
    if (!handler) return err('EBADCHANNEL', `no handler for ${call.channel}`);
    try {
      return await handler(call.payload as never);
    } catch (e) {
      return err('EINTERNAL', e instanceof Error ? e.message : String(e));
    }
  }
}
