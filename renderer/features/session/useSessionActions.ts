/**
 * The host calls a session's dashboard makes, bound to its id. Failures become notices (the
 * caller may also read the Result); successful calls that start a request select it. A replay
 * on a tapped session runs in a session of its own (a fresh server the tap started): that
 * session is shown, with its request selected.
 */
import { useMemo } from 'react';
import type { ChannelRequest, ChannelResponses, HostChannel } from '../../../shared/host-api';
import type { JsonRpcId } from '../../../shared/requests';
import type { Result } from '../../../shared/result';
import type { OverloadPolicy, OversizePolicy, ReaderMode } from '../../../shared/session-options';
import { useHost } from '../../app/host-context';
import { appStore } from '../../store';

export interface SessionActions {
  cancel(requestId: JsonRpcId): Promise<Result<null>>;
  replay(requestId: JsonRpcId): Promise<Result<{ requestId: JsonRpcId; sessionId?: string }>>;
  callTool(name: string, args: Record<string, unknown>): Promise<Result<{ requestId: JsonRpcId }>>;
  ping(): Promise<Result<{ requestId: JsonRpcId }>>;
  recover(): Promise<Result<ChannelResponses['session:recover']>>;
  setReaderMode(mode: ReaderMode): Promise<Result<null>>;
  setConsumerDelay(ms: number): Promise<Result<null>>;
  setLimits(limits: {
    maxFrameBytes?: number;
    onOversize?: OversizePolicy;
    overloadPolicy?: OverloadPolicy;
  }): Promise<Result<null>>;
  stop(): Promise<Result<null>>;
  close(): Promise<Result<null>>;
  /** Starts the same config again in this session's place (its tab, its name), and shows it. */
  restart(): Promise<Result<ChannelResponses['session:restart']>>;
}

export function useSessionActions(sessionId: string): SessionActions {
  const host = useHost();
  return useMemo(() => {
    async function call<C extends HostChannel>(
      channel: C,
      request: ChannelRequest<C>,
    ): Promise<Result<ChannelResponses[C]>> {
      let result: Result<ChannelResponses[C]>;
      try {
        result = await host.invoke(channel, request);
      } catch (e) {
        result = {
          ok: false,
          error: { code: 'EHOST', message: e instanceof Error ? e.message : String(e) },
        };
      }
      if (!result.ok) appStore.getState().notify(`${channel}: ${result.error.message}`);
      return result;
    }
    const select = <R extends { requestId: JsonRpcId; sessionId?: string }>(
      r: Result<R>,
    ): Result<R> => {
      if (!r.ok) return r;
      const store = appStore.getState();
      const where = r.value.sessionId ?? sessionId;
      store.selectRequest(where, r.value.requestId);
      if (where !== sessionId) store.setActive(where);
      return r;
    };
    return {
      cancel: (requestId) =>
        call('request:cancel', { sessionId, requestId, reason: 'cancelled in Pipescope' }),
      replay: async (requestId) => select(await call('request:replay', { sessionId, requestId })),
      callTool: async (name, args) =>
        select(await call('request:call-tool', { sessionId, name, args })),
      ping: async () => select(await call('request:ping', { sessionId })),
      recover: async () => {
        const r = await call('session:recover', { sessionId });
        if (r.ok) appStore.getState().setRecovery(sessionId, r.value);
        return r;
      },
      setReaderMode: (mode) => call('session:set-reader-mode', { sessionId, mode }),
      setConsumerDelay: (ms) => call('session:set-consumer-delay', { sessionId, ms }),
      setLimits: (limits) => call('session:set-limits', { sessionId, ...limits }),
      stop: () => call('session:stop', { sessionId }),
      close: () => call('session:close', { sessionId }),
      restart: async () => {
        const r = await call('session:restart', { sessionId });
        if (r.ok) appStore.getState().openSession(r.value);
        return r;
      },
    };
  }, [host, sessionId]);
}
