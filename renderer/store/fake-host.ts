/**
 * A scripted HostApi for unit tests: answers per channel come from `handlers` (default: an
 * EUNAVAILABLE error), every call is recorded, and `emit` pushes HostEvents to subscribers.
 */
import type {
  ChannelRequest,
  ChannelResponses,
  HostApi,
  HostChannel,
  HostEvent,
} from '../../shared/host-api';
import type { Result } from '../../shared/result';

export type FakeHandlers = {
  [C in HostChannel]?: (request: ChannelRequest<C>) => Result<ChannelResponses[C]>;
};

export interface FakeHost extends HostApi {
  calls: { channel: HostChannel; request: unknown }[];
  emit(event: HostEvent): void;
  listenerCount(): number;
}

export function createFakeHost(handlers: FakeHandlers = {}): FakeHost {
  const listeners = new Set<(event: HostEvent) => void>();
  const calls: FakeHost['calls'] = [];
  return {
    kind: 'browser',
    calls,
    async invoke<C extends HostChannel>(
      channel: C,
      request: ChannelRequest<C>,
    ): Promise<Result<ChannelResponses[C]>> {
      calls.push({ channel, request });
      const handler = handlers[channel] as
        | ((r: ChannelRequest<C>) => Result<ChannelResponses[C]>)
        | undefined;
      if (!handler) {
        return { ok: false, error: { code: 'EUNAVAILABLE', message: `${channel} not scripted` } };
      }
      return handler(request);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit(event) {
      for (const l of listeners) l(event);
    },
    listenerCount: () => listeners.size,
  };
}
