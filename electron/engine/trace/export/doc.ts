/**
 * Incident report exports: one self-contained HTML file (inline CSS, charts as inline SVG,
 * a CSP that forbids loading anything) or one Markdown file (charts as SVG data-URI images
 * plus Unicode sparklines for viewers that drop data URIs). Both hold the findings with their
 * explanations, the key counters, the charts, the requests and the stderr tail.
 * Pure over a TraceSummary; every string from the trace is redacted again and escaped.
 */
import { FINDING_EXPLANATIONS } from '../../../../shared/findings.js';
import { Redactor } from '../redact.js';
import type { TraceSummary } from '../summary.js';
import { escapeXml, formatValue, type Point, sparkline, svgLineChart } from './charts.js';

const MAX_REQUEST_ROWS = 200;

interface Chart {
  title: string;
  unit: string;
  points: Point[];
  color: string;
}

function charts(sum: TraceSummary): Chart[] {
  const pick = (f: (m: TraceSummary['metrics'][number]['metrics']) => number): Point[] =>
    sum.metrics.map((e) => ({ t: e.t, v: f(e.metrics) }));
  return [
    { title: 'stdout bytes/s', unit: 'B/s', points: pick((m) => m.stdoutRate), color: '#2563eb' },
    {
      title: 'dispatcher depth',
      unit: 'frames',
      points: pick((m) => m.dispatcherDepth),
      color: '#d97706',
    },
    {
      title: 'requests in flight',
      unit: '',
      points: pick((m) => m.requestsInFlight),
      color: '#059669',
    },
  ];
}

interface Facts {
  title: string;
  command: string;
  rows: [string, string][];
}

function facts(sum: TraceSummary, r: Redactor): Facts {
  const rep = sum.report;
  const m = rep.metrics;
  const command = r.command([rep.server.command, ...rep.server.args].join(' '));
  const exit = rep.server.exit
    ? rep.server.exit.signal
      ? `killed by ${rep.server.exit.signal}`
      : `exit code ${rep.server.exit.code}`
    : 'no exit recorded';
  const b = (n: number): string => formatValue(n, 'B');
  return {
    title: `Pipescope incident report: ${command}`,
    command,
    rows: [
      ['recorded', new Date(sum.header.startedAt).toISOString()],
      ['duration', `${(sum.durationMs / 1000).toFixed(1)} s`],
      ['server', `pid ${rep.server.pid ?? '-'}, ${exit}`],
      ['stdout', `${b(m.stdoutBytes)} in ${m.frames} frame(s), largest ${b(m.largestFrameBytes)}`],
      ['stderr', b(m.stderrBytes)],
      ['parse errors / oversize', `${m.parseErrors} / ${m.oversizeFrames}`],
      ['partial bytes at EOF', b(m.partialBytesAtEof)],
      ['dispatcher wait', `${m.dispatcherWaitMs} ms (max depth ${m.dispatcherMaxDepth})`],
      ['stdin', `${b(m.stdinBytes)}, waited ${m.stdinWaitMs} ms`],
      ['cancellations / late responses', `${m.cancellationsSent} / ${m.lateResponses}`],
      [
        'recovery',
        rep.recovery
          ? `${rep.recovery.method} ${rep.recovery.ok ? `ok in ${rep.recovery.latencyMs} ms` : 'failed'}`
          : 'none sent',
      ],
      [
        'trace',
        `${sum.frames.in} in / ${sum.frames.out} out frames, ${sum.frames.truncated} without text; ` +
          `${sum.header.redacted ? 'redacted' : 'NOT redacted'}` +
          (sum.reconstructed ? '; no end record: report rebuilt from events' : ''),
      ],
    ],
  };
}

export function toHtml(sum: TraceSummary): string {
  const r = new Redactor({ enabled: true });
  const f = facts(sum, r);
  const e = escapeXml;
  const out: string[] = [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>${e(f.title)}</title>`,
    '<style>body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:60rem;color:#111827}' +
      'table{border-collapse:collapse;margin:.5rem 0 1.5rem}td,th{border:1px solid #e5e7eb;padding:.25rem .5rem;text-align:left;vertical-align:top}' +
      'th{background:#f9fafb}.error{color:#b91c1c;font-weight:600}.warn{color:#b45309;font-weight:600}.info{color:#374151}' +
      'pre{background:#f3f4f6;padding:.75rem;overflow:auto}.chart{margin:.5rem 0}.muted{color:#6b7280}</style>',
    '</head><body>',
    `<h1>Incident report</h1><p><code>${e(f.command)}</code></p>`,
    '<h2>Findings</h2>',
  ];
  if (sum.report.findings.length === 0) out.push('<p>None.</p>');
  else {
    out.push('<table><tr><th>level</th><th>code</th><th>what was seen</th><th>meaning</th></tr>');
    for (const x of sum.report.findings) {
      out.push(
        `<tr><td class="${x.level}">${x.level}</td><td><code>${x.code}</code></td>` +
          `<td>${e(r.text(x.message))}</td><td class="muted">${e(FINDING_EXPLANATIONS[x.code] ?? '')}</td></tr>`,
      );
    }
    out.push('</table>');
  }
  out.push('<h2>Key counters</h2><table>');
  for (const [k, v] of f.rows) out.push(`<tr><th>${e(k)}</th><td>${e(v)}</td></tr>`);
  out.push('</table><h2>Charts</h2>');
  for (const c of charts(sum)) {
    out.push(
      `<div class="chart">${svgLineChart(c.points, { title: c.title, unit: c.unit, color: c.color })}</div>`,
    );
  }
  out.push('<h2>Requests</h2>');
  out.push(
    '<table><tr><th>id</th><th>method</th><th>status</th><th>latency</th><th>response</th></tr>',
  );
  for (const q of sum.report.requests.slice(0, MAX_REQUEST_ROWS)) {
    out.push(
      `<tr><td>${e(String(q.id))}</td><td>${e(q.method)}</td><td>${q.status}</td>` +
        `<td>${q.latencyMs === null ? '-' : `${q.latencyMs} ms`}</td>` +
        `<td>${q.responseBytes === null ? '-' : e(formatValue(q.responseBytes, 'B'))}</td></tr>`,
    );
  }
  out.push('</table>');
  const more = sum.report.requests.length - MAX_REQUEST_ROWS;
  if (more > 0) out.push(`<p class="muted">… and ${more} more.</p>`);
  if (sum.stderrTail.length) {
    out.push('<h2>stderr (last lines)</h2>');
    out.push(`<pre>${e(sum.stderrTail.map((l) => r.text(l)).join('\n'))}</pre>`);
  }
  out.push(
    `<p class="muted">Generated by pipescope from a trace recorded ${e(f.rows[0][1])}.</p>`,
    '</body></html>',
  );
  return `${out.join('\n')}\n`;
}

/** Markdown table cell: pipes and newlines would break the row. */
function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

export function toMarkdown(sum: TraceSummary): string {
  const r = new Redactor({ enabled: true });
  const f = facts(sum, r);
  const out: string[] = [`# Incident report`, '', `\`${f.command.replace(/`/g, "'")}\``, ''];
  out.push('## Findings', '');
  if (sum.report.findings.length === 0) out.push('None.', '');
  for (const x of sum.report.findings) {
    out.push(`- **${x.level}** \`${x.code}\`: ${cell(r.text(x.message))}`);
    out.push(`  - ${FINDING_EXPLANATIONS[x.code] ?? ''}`);
  }
  out.push('', '## Key counters', '', '| | |', '|---|---|');
  for (const [k, v] of f.rows) out.push(`| ${cell(k)} | ${cell(v)} |`);
  out.push('', '## Charts', '');
  for (const c of charts(sum)) {
    const svg = svgLineChart(c.points, {
      title: c.title,
      unit: c.unit,
      color: c.color,
      standalone: true,
    });
    const uri = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
    const max = Math.max(0, ...c.points.map((p) => p.v));
    out.push(`![${c.title}](${uri})`, '');
    out.push(
      '```text',
      `${c.title.padEnd(20)} ${sparkline(c.points.map((p) => p.v))}  max ${formatValue(max, c.unit)}`,
      '```',
      '',
    );
  }
  out.push(
    '## Requests',
    '',
    '| id | method | status | latency | response |',
    '|---|---|---|---|---|',
  );
  for (const q of sum.report.requests.slice(0, MAX_REQUEST_ROWS)) {
    out.push(
      `| ${cell(String(q.id))} | ${cell(q.method)} | ${q.status} | ` +
        `${q.latencyMs === null ? '-' : `${q.latencyMs} ms`} | ` +
        `${q.responseBytes === null ? '-' : formatValue(q.responseBytes, 'B')} |`,
    );
  }
  const more = sum.report.requests.length - MAX_REQUEST_ROWS;
  if (more > 0) out.push('', `… and ${more} more.`);
  if (sum.stderrTail.length) {
    out.push('', '## stderr (last lines)', '', '```text');
    for (const l of sum.stderrTail) out.push(r.text(l).replace(/```/g, "'''"));
    out.push('```');
  }
  out.push('', `_Generated by pipescope from a trace recorded ${f.rows[0][1]}._`, '');
  return out.join('\n');
}
