import type { ReactElement } from 'react';
import type { SessionInfo } from '../../../shared/session-info';
import { Counter, type Tone } from './Counter';

/** Process state: pid and alive, or how it ended (exit code or signal). */
export function ProcessCounter({ info }: { info: SessionInfo }): ReactElement {
  const { exit, pid, state } = info;
  let value: string;
  let sub: string;
  let tone: Tone = 'ok';
  if (info.startError) {
    value = 'not started';
    sub = info.startError;
    tone = 'error';
  } else if (exit) {
    value = exit.signal ? exit.signal : `exit ${exit.code ?? '?'}`;
    sub = `pid ${pid ?? '—'} · ${state}`;
    tone = exit.code === 0 && !exit.signal ? 'muted' : 'error';
  } else {
    value = state === 'running' ? 'alive' : state;
    sub = `pid ${pid ?? '—'}`;
    tone = state === 'running' ? 'ok' : 'muted';
  }
  return (
    <Counter
      name="process"
      label="process"
      value={value}
      raw={exit ? `exit:${exit.code ?? ''}:${exit.signal ?? ''}` : state}
      sub={sub}
      subName="pid"
      tone={tone}
      title={info.startError ?? undefined}
    />
  );
}
