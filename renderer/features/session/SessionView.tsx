/**
 * One session's dashboard. Each child subscribes to its own slice of the store, so this
 * component re-renders only when the session's state or handshake changes. A start that
 * failed shows FailedStart instead (the dashboard is one click away).
 */
import './dashboard.css';
import { type ReactElement, useState } from 'react';
import { useApp } from '../../store';
import { handshakeState } from '../../store/selectors';
import { LiveCharts } from '../charts/LiveCharts';
import { RequestComposer } from '../composer/RequestComposer';
import { DemoControls } from '../controls/DemoControls';
import { CounterStrip } from '../counters/CounterStrip';
import { FindingsPanel } from '../findings/FindingsPanel';
import { ProcessPanel } from '../process/ProcessPanel';
import { RequestsTable } from '../requests/RequestsTable';
import { RequestDetail } from '../results/RequestDetail';
import { useSessionShortcuts } from '../shortcuts/useSessionShortcuts';
import { TapBanner } from '../tap/TapBanner';
import { hostTap } from '../tap/tap-view';
import { TraceBar } from '../trace/TraceBar';
import { FailedStart } from './FailedStart';
import { FramesSection, FrameViewerDrawer } from './FramesSection';
import { sessionOutcome } from './outcome';
import { SessionHeader } from './SessionHeader';
import { StderrSection } from './StderrSection';
import { useSessionActions } from './useSessionActions';

export function SessionView({ sessionId }: { sessionId: string }): ReactElement {
  const state = useApp((s) => s.bySession[sessionId]?.info.state ?? 'starting');
  const handshake = useApp((s) => {
    const data = s.bySession[sessionId];
    return data ? handshakeState(data) : 'pending';
  });
  // A session opened from a trace is read-only: same dashboard, no controls that act on a server.
  const readOnly = useApp((s) => s.bySession[sessionId]?.info.trace != null);
  // A tapped session's traffic is the host's: Cancel, Replay (on a fresh server) and the
  // flight recorder only; the tap refuses whatever would change the host's session.
  const tapped = useApp((s) => hostTap(s.bySession[sessionId]?.info) !== null);
  const tap = useApp((s) => s.bySession[sessionId]?.info.tap != null);
  const failed = useApp((s) => {
    const info = s.bySession[sessionId]?.info;
    return info ? sessionOutcome(info).kind === 'failed-start' : false;
  });
  const [dashboardAnyway, setDashboardAnyway] = useState(false);
  const actions = useSessionActions(sessionId);
  useSessionShortcuts(sessionId, actions, readOnly, tapped);
  const root = {
    className: 'session',
    'data-testid': 'session-view',
    'data-session-id': sessionId,
    'data-session-state': state,
    'data-handshake': handshake,
    'data-read-only': readOnly,
    'data-tapped': tapped,
    'data-failed-start': failed,
  };
  if (failed && !readOnly && !tapped && !dashboardAnyway)
    return (
      <div {...root}>
        <FailedStart
          sessionId={sessionId}
          actions={actions}
          onShowDashboard={() => setDashboardAnyway(true)}
        />
      </div>
    );
  return (
    <div {...root}>
      {readOnly ? (
        <TraceBar sessionId={sessionId} />
      ) : (
        <div className="session-top">
          <SessionHeader sessionId={sessionId} actions={actions} tapped={tapped} />
          {tap ? <TapBanner sessionId={sessionId} /> : null}
          {tapped ? null : <DemoControls sessionId={sessionId} actions={actions} />}
        </div>
      )}
      <CounterStrip sessionId={sessionId} />
      <div className="dashboard">
        <div className="dash-main">
          <LiveCharts sessionId={sessionId} />
          <RequestsTable
            sessionId={sessionId}
            actions={actions}
            readOnly={readOnly}
            tapped={tapped}
          />
          <RequestDetail sessionId={sessionId} />
          <ProcessPanel sessionId={sessionId} />
          <FramesSection sessionId={sessionId} />
        </div>
        <div className="dash-side">
          <FindingsPanel sessionId={sessionId} />
          {readOnly || tapped ? null : <RequestComposer sessionId={sessionId} actions={actions} />}
          <StderrSection sessionId={sessionId} />
        </div>
      </div>
      <FrameViewerDrawer sessionId={sessionId} />
    </div>
  );
}
