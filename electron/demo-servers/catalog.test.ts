/** The demo catalog's own consistency: ids, files, knobs, finding codes, command building. */

import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FINDING_LEVELS } from '../../shared/findings.js';
import { emptyLiveMetrics } from '../../shared/metrics.js';
import { REQUEST_STATUSES } from '../../shared/requests.js';
import { DEMO_CATALOG, findDemo } from './catalog.js';
import { demoCommand, demoServerPath } from './launch.js';
import { knobAccessors, parseKnobArgs } from './lib/knobs.js';

const here = path.dirname(fileURLToPath(import.meta.url));

const REQUIRED_IDS = [
  'healthy',
  'oversized-result',
  'slow-producer',
  'ignores-cancel',
  'cpu-bound',
  'subprocess-producer',
  'subprocess-blocked',
  'stderr-flood',
  'stdout-pollution',
  'malformed-json',
  'hostile-payloads',
  'frame-limit',
  'crash-mid-response',
  'ignores-sigterm',
  'stops-reading-stdin',
  'buffered-stdout',
  'notification-flood',
  'server-requests',
];

describe('demo catalog', () => {
  it('lists exactly the required scenarios, once each', () => {
    const ids = DEMO_CATALOG.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual([...REQUIRED_IDS].sort());
  });

  it.each(DEMO_CATALOG.map((s) => [s.id, s] as const))(
    '%s has a server file and a full entry',
    (id, s) => {
      expect(existsSync(path.join(here, `${id}.ts`))).toBe(true);
      expect(s.title.length).toBeGreaterThan(5);
      expect(s.lesson.length).toBeGreaterThan(100);
      expect(s.steps.length).toBeGreaterThan(0);
      expect(s.tools.length).toBeGreaterThan(0);
      expect(findDemo(id)).toBe(s);
      expect(demoServerPath(id)).toMatch(
        new RegExp(`dist[\\\\/]electron[\\\\/]demo-servers[\\\\/]${id}\\.js$`),
      );
    },
  );

  it.each(DEMO_CATALOG.map((s) => [s.id, s] as const))(
    '%s knobs have unique names and defaults',
    (_id, s) => {
      const names = s.knobs.map((k) => k.name);
      expect(new Set(names).size).toBe(names.length);
      for (const k of s.knobs) {
        expect(k.name).toMatch(/^[a-z][a-z0-9-]*$/);
        expect(k.default).not.toBe('');
        expect(k.description.length).toBeGreaterThan(5);
        const accessors = knobAccessors({ [k.name]: k.default });
        if (k.unit === 'bytes' || k.unit === 'ms' || k.unit === 'count')
          expect(() => accessors.int(k.name)).not.toThrow();
        if (k.unit === 'boolean') expect(() => accessors.bool(k.name)).not.toThrow();
      }
      for (const name of Object.keys(s.probe.knobs ?? {})) expect(names).toContain(name);
    },
  );

  it.each(DEMO_CATALOG.map((s) => [s.id, s] as const))(
    '%s expectations use known codes and metrics',
    (_id, s) => {
      const metricNames = Object.keys(emptyLiveMetrics());
      for (const code of [...s.expected.findings, ...(s.expected.absentFindings ?? [])]) {
        expect(Object.keys(FINDING_LEVELS)).toContain(code);
      }
      const overlap = s.expected.findings.filter((c) => s.expected.absentFindings?.includes(c));
      expect(overlap).toEqual([]);
      for (const metric of s.expected.metrics) expect(metricNames).toContain(metric);
      if (s.expected.requestStatus) {
        expect(REQUEST_STATUSES).toContain(s.expected.requestStatus);
        expect(s.probe.call).toBeDefined();
      }
      if (s.probe.call) expect(s.tools).toContain(s.probe.call);
    },
  );
});

describe('demoCommand', () => {
  it('runs the built server with node and passes knobs as --name=value', () => {
    const { command, args } = demoCommand('oversized-result', { bytes: '1024' });
    expect(command).toBe(process.execPath);
    expect(args).toEqual([demoServerPath('oversized-result'), '--bytes=1024']);
  });

  it('rejects unknown knobs and unknown ids with a clear error', () => {
    expect(() => demoCommand('oversized-result', { byts: '1' })).toThrow(
      /no knob "byts".*known: bytes/,
    );
    expect(() => demoCommand('no-such-demo', {})).toThrow(/unknown demo server: no-such-demo/);
  });
});

describe('knob parsing', () => {
  it('applies defaults, overrides and rejects bad input', () => {
    const defaults = { bytes: '10', mode: 'a' };
    expect(parseKnobArgs([], defaults)).toEqual(defaults);
    expect(parseKnobArgs(['--bytes=5'], defaults)).toEqual({ bytes: '5', mode: 'a' });
    expect(() => parseKnobArgs(['--nope=1'], defaults)).toThrow(/unknown knob --nope/);
    expect(() => parseKnobArgs(['bytes=1'], defaults)).toThrow(/expected --name=value/);
    expect(() => knobAccessors({ bytes: '1e3' }).int('bytes')).toThrow(/integer/);
    expect(() => knobAccessors({ flag: 'yes' }).bool('flag')).toThrow(/true or false/);
  });
});
