// Server-rendered markup of the attach views (no DOM environment here): a report's summary,
// note, findings, stdio with the host, and tree; the candidate list and its empty state.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { AttachReport, Candidate } from '../../../shared/attach.js';
import { emptyLiveMetrics, toReportMetrics } from '../../../shared/metrics.js';
import { AttachReportView } from './AttachReportView.js';
import { CandidateTable } from './CandidateTable.js';

const HOST = { pid: 200, command: '/usr/bin/node /opt/host.js' };

function report(over: Partial<AttachReport> = {}): AttachReport {
  return {
    server: { command: 'node', args: ['/srv/server.js'], pid: 300, exit: null },
    metrics: toReportMetrics(emptyLiveMetrics()),
    requests: [],
    recovery: null,
    findings: [
      {
        code: 'server-write-blocked',
        level: 'error',
        message: 'the server has been blocked writing stdout for 1.4 s',
        evidence: { pid: 300, command: 'node /srv/server.js', state: 'S', ms: 1400 },
      },
    ],
    process: { available: true, samples: 9 },
    attach: {
      watchMs: 2000,
      observedMs: 2100,
      tree: [
        {
          pid: 300,
          command: 'node /srv/server.js',
          ppid: 200,
          depth: 0,
          state: 'S',
          cpuPercent: 0,
          wchan: 'pipe_write',
          syscall: { name: 'write', fd: 1, bytes: 16384 },
          doing: 'writing stdout (16,384 B), blocked 1.4 s',
        },
        {
          pid: 301,
          command: 'sh -c sleep 100',
          ppid: 300,
          depth: 1,
          state: 'S',
          cpuPercent: null,
          wchan: null,
          syscall: null,
          doing: 'sleeping',
        },
      ],
      stdio: [
        {
          fd: 0,
          kind: 'pipe',
          target: 'pipe:[11]',
          inode: 11,
          peer: { ...HOST, fd: 20, how: 'holds the write end as fd 20' },
          unread: null,
        },
        {
          fd: 1,
          kind: 'pipe',
          target: 'pipe:[12]',
          inode: 12,
          peer: { ...HOST, fd: 21, how: 'holds the read end as fd 21' },
          unread: null,
        },
        { fd: 2, kind: 'null', target: '/dev/null', inode: null, peer: null, unread: null },
      ],
      host: { ...HOST, how: 'holds the read end of its stdout' },
      parent: HOST,
      syscallReadable: false,
      written: { bytes: 65536, source: 'wchar of pid 300 over 2.1 s' },
      summary: 'blocked writing stdout: the host (pid 200) is not reading',
      note: 'syscall not readable without ptrace rights over the process',
    },
    ...over,
  };
}

describe('AttachReportView', () => {
  it('shows the summary, the note, the findings, the host on each end and the tree', () => {
    const html = renderToStaticMarkup(<AttachReportView report={report()} />);
    expect(html).toContain('data-testid="attach-report"');
    expect(html).toContain('data-pid="300"');
    expect(html).toContain('data-errors="1"');
    expect(html).toContain('blocked writing stdout: the host (pid 200) is not reading');
    expect(html).toContain('data-testid="attach-note"');
    expect(html).toContain('ptrace');
    expect(html).toContain('data-testid="finding-server-write-blocked"');
    expect(html).not.toContain('finding-time'); // a report has no times
    expect(html).toContain('holds the read end as fd 21');
    expect(html).toMatch(/data-testid="attach-host".*200/);
    expect(html.match(/data-fd="/g)).toHaveLength(3);
    expect(html).toContain('data-depth="1"');
    expect(html).toContain('writing stdout (16,384 B), blocked 1.4 s');
    expect(html).toContain('64.0 KiB');
    expect(html).toContain('current system call not readable');
  });

  it('says there are no findings, and no host, when there are none', () => {
    const r = report({ findings: [] });
    r.attach = { ...r.attach, host: null, note: undefined, syscallReadable: true };
    const html = renderToStaticMarkup(<AttachReportView report={r} />);
    expect(html).toContain('data-testid="attach-no-findings"');
    expect(html).toContain('data-errors="0"');
    expect(html).toContain('not found (no process');
    expect(html).not.toContain('data-testid="attach-note"');
  });
});

describe('CandidateTable', () => {
  const c: Candidate = {
    pid: 4242,
    command: 'npx -y @modelcontextprotocol/server-filesystem /home/ada',
    ppid: 4000,
    parentCommand: '/opt/Claude/claude-desktop',
    why: ['its parent 4000 is Claude Desktop, and its stdin and stdout are pipes or sockets'],
  };

  it('lists each candidate with its parent, why, and Attach', () => {
    const html = renderToStaticMarkup(
      <CandidateTable candidates={[c]} watching={null} onAttach={() => {}} />,
    );
    expect(html).toContain('data-pid="4242"');
    expect(html).toContain('its parent 4000 is Claude Desktop');
    expect(html).toContain('claude-desktop');
    expect(html).toMatch(/data-testid="attach-run"[^>]*>Attach</);
  });

  it('disables every Attach while one watches, and has an empty state', () => {
    const html = renderToStaticMarkup(
      <CandidateTable candidates={[c, { ...c, pid: 5 }]} watching={4242} onAttach={() => {}} />,
    );
    expect(html.match(/disabled=""/g)).toHaveLength(2);
    expect(html).toContain('Watching…');
    const none = renderToStaticMarkup(
      <CandidateTable candidates={[]} watching={null} onAttach={() => {}} />,
    );
    expect(none).toContain('data-testid="attach-none"');
  });
});
