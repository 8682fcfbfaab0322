/**
 * The first screen: the sessions already open (they live in the host), the demo catalog, a
 * server already running under another host (attach), a custom server, and servers from other
 * hosts' configs (import, or tap them where they are).
 */
import './start.css';
import type { ReactElement } from 'react';
import { Panel } from '../../components/Panel';
import { AttachPanel } from '../attach/AttachPanel';
import { OpenTracePanel } from '../trace/OpenTracePanel';
import { CustomServerForm } from './CustomServerForm';
import { DemoCatalog } from './DemoCatalog';
import { DiscoveredConfigs } from './DiscoveredConfigs';
import { ImportConfig } from './ImportConfig';
import { SessionList } from './SessionList';

export function StartScreen(): ReactElement {
  return (
    <div className="start" data-testid="start-screen">
      <section className="start-catalog">
        <SessionList />
        <div className="start-attach">
          <AttachPanel />
        </div>
        <div className="start-intro">
          <h1>Watch the pipe, not just the messages.</h1>
          <p className="muted">
            Each demo is a small MCP server that misbehaves on purpose. Start one, follow its steps,
            and watch the counters and findings explain what a stuck stdio pipe looks like.
          </p>
        </div>
        <DemoCatalog />
      </section>
      <aside className="start-side">
        <Panel title="Run a server" testId="custom-server">
          <CustomServerForm />
        </Panel>
        <Panel title="Import from another host">
          <ImportConfig />
        </Panel>
        <Panel title="Open a trace" testId="open-trace-panel">
          <OpenTracePanel />
        </Panel>
        <Panel title="Found on this machine">
          <DiscoveredConfigs />
        </Panel>
      </aside>
    </div>
  );
}
