/**
 * The check report as JUnit XML, the format GitHub Actions, GitLab and Jenkins read: one
 * `<testsuite>` in `<testsuites>`, one `<testcase>` per case, `<failure>` or `<skipped>` in it,
 * counts and times (seconds) on both levels, as the common JUnit schema has them. Everything
 * a server wrote that reaches the XML (a polluting line's preview, an error message) is escaped,
 * and the characters XML 1.0 cannot hold at all (most control characters) are replaced.
 */
import type { CheckReport } from '../../../shared/check-report.js';

/** Characters XML 1.0 does not allow even escaped (most control characters), and lone
 *  surrogates. (Built from a string: the control characters are the point, not a slip.) */
const NOT_XML = new RegExp(
  '[\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\uFFFE\\uFFFF]' +
    '|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]',
  'g',
);

export function xmlText(s: string): string {
  return s
    .replace(NOT_XML, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

export function xmlAttr(s: string): string {
  return xmlText(s)
    .replace(/"/g, '&quot;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
    .replace(/\t/g, '&#9;');
}

const secs = (ms: number): string => (ms / 1000).toFixed(3);

export function formatJunit(r: CheckReport): string {
  const s = r.summary;
  const command = [r.server.command, ...r.server.args].join(' ');
  const suite = `pipescope check: ${command}`;
  const counts = `tests="${s.cases}" failures="${s.failed}" errors="0" skipped="${s.skipped}" time="${secs(r.durationMs)}"`;
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="pipescope check" ${counts}>`,
    `  <testsuite name="${xmlAttr(suite)}" ${counts} timestamp="${r.startedAt.replace(/\.\d+Z$/, '')}">`,
    '    <properties>',
    `      <property name="server.command" value="${xmlAttr(command)}"/>`,
    ...(r.serverInfo
      ? [
          `      <property name="server.name" value="${xmlAttr(r.serverInfo.name)}"/>`,
          `      <property name="server.version" value="${xmlAttr(r.serverInfo.version)}"/>`,
          `      <property name="server.protocolVersion" value="${xmlAttr(r.serverInfo.protocolVersion)}"/>`,
        ]
      : []),
    `      <property name="tools.called" value="${xmlAttr(r.tools.map((t) => t.name).join(', '))}"/>`,
    '    </properties>',
  ];
  for (const c of r.cases) {
    const open = `    <testcase name="${xmlAttr(c.id)}" classname="pipescope.check" time="${secs(c.durationMs)}"`;
    if (c.status === 'passed') {
      out.push(
        `${open}>`,
        `      <system-out>${xmlText(c.reason)}</system-out>`,
        '    </testcase>',
      );
      continue;
    }
    out.push(`${open}>`);
    if (c.status === 'skipped') out.push(`      <skipped message="${xmlAttr(c.reason)}"/>`);
    else {
      const detail = [
        c.reason,
        ...c.findings.map((f) => `[${f.level}] ${f.code}: ${f.message}`),
        `evidence: ${JSON.stringify(c.evidence, null, 2)}`,
      ].join('\n');
      const type = c.codes[0] ?? 'assertion';
      out.push(
        `      <failure message="${xmlAttr(c.reason)}" type="${xmlAttr(type)}">${xmlText(detail)}</failure>`,
      );
    }
    out.push('    </testcase>');
  }
  out.push('  </testsuite>', '</testsuites>', '');
  return out.join('\n');
}
