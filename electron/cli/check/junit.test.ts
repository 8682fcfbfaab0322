import { DOMParser } from '@xmldom/xmldom';
import { describe, expect, it } from 'vitest';
import type { CheckCase, CheckReport } from '../../../shared/check-report.js';
import { formatJunit, xmlAttr, xmlText } from './junit.js';

function report(cases: Partial<CheckCase>[]): CheckReport {
  const full = cases.map(
    (c, i): CheckCase => ({
      id: 'handshake',
      title: 't',
      status: 'passed',
      reason: `reason ${i}`,
      durationMs: 1234,
      codes: [],
      findings: [],
      evidence: {},
      ...c,
    }),
  );
  return {
    format: 'pipescope-check',
    version: 1,
    server: { command: 'node', args: ['srv.js', 'a b'] },
    startedAt: '2026-01-02T03:04:05.678Z',
    durationMs: 9876,
    serverInfo: { name: 'srv', version: '1.0.0', protocolVersion: '2025-06-18' },
    tools: [],
    notCalled: [],
    cases: full,
    runs: [],
    summary: {
      cases: full.length,
      passed: full.filter((c) => c.status === 'passed').length,
      failed: full.filter((c) => c.status === 'failed').length,
      skipped: full.filter((c) => c.status === 'skipped').length,
    },
    exitCode: full.some((c) => c.status === 'failed') ? 1 : 0,
  };
}

function parse(xml: string): Document {
  const errors: string[] = [];
  const doc = new DOMParser({
    errorHandler: {
      warning: (m) => errors.push(m),
      error: (m) => errors.push(m),
      fatalError: (m) => errors.push(m),
    },
  }).parseFromString(xml, 'text/xml');
  expect(errors).toEqual([]);
  return doc as unknown as Document;
}

describe('formatJunit', () => {
  it('escapes what a server wrote, and replaces what XML cannot hold at all', () => {
    expect(xmlText('a<b>&c')).toBe('a&lt;b&gt;&amp;c');
    expect(xmlAttr('say "hi"\n\tnow')).toBe('say &quot;hi&quot;&#10;&#9;now');
    expect(xmlText('bell\u0007 nul\u0000 esc\u001b')).toBe('bell\uFFFD nul\uFFFD esc\uFFFD');
    expect(xmlText('lone \uD800 pair \uD83D\uDE00')).toBe('lone \uFFFD pair \uD83D\uDE00');
  });

  it('counts and times on both levels; failure and skipped carry the reason', () => {
    const hostile = '=== banner \u001b[31m <b>&"\' \uD800 ===';
    const doc = parse(
      formatJunit(
        report([
          { id: 'handshake' },
          {
            id: 'stdout-clean',
            status: 'failed',
            reason: `1 line on stdout: ${hostile}`,
            codes: ['stdout-pollution'],
            findings: [{ code: 'stdout-pollution', level: 'error', message: hostile }],
          },
          { id: 'cancel-subprocess', status: 'skipped', reason: 'no subprocess' },
        ]),
      ),
    );
    const suites = doc.documentElement;
    expect(suites.tagName).toBe('testsuites');
    for (const el of [suites, suites.getElementsByTagName('testsuite')[0]]) {
      expect(el.getAttribute('tests')).toBe('3');
      expect(el.getAttribute('failures')).toBe('1');
      expect(el.getAttribute('skipped')).toBe('1');
      expect(el.getAttribute('errors')).toBe('0');
      expect(el.getAttribute('time')).toBe('9.876');
    }
    const cases = suites.getElementsByTagName('testcase');
    expect(cases.length).toBe(3);
    expect(cases[0].getAttribute('time')).toBe('1.234');
    const failure = cases[1].getElementsByTagName('failure')[0];
    expect(failure.getAttribute('type')).toBe('stdout-pollution');
    expect(failure.getAttribute('message')).toContain('<b>&"\'');
    expect(failure.textContent).toContain('[error] stdout-pollution');
    expect(cases[2].getElementsByTagName('skipped')[0].getAttribute('message')).toBe(
      'no subprocess',
    );
    expect(suites.getElementsByTagName('testsuite')[0].getAttribute('timestamp')).toBe(
      '2026-01-02T03:04:05',
    );
  });
});
