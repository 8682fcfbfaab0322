/**
 * childWithFinding (trace-seek.ts) in every order of the child's samples and its finding: the
 * moment the e2e process test seeks a recorded trace to. Pure: no browser.
 */
import { describe, expect, it } from 'vitest';
import { childWithFinding } from './trace-seek.js';

const CODE = 'subprocess-blocked';
const sample = (t: number, child: boolean): string =>
  JSON.stringify({
    t,
    type: 'process',
    snapshot: { processes: child ? [{ pid: 1 }, { pid: 2 }] : [{ pid: 1 }] },
  });
const finding = (t: number, code = CODE): string =>
  JSON.stringify({ t, type: 'finding', code, level: 'warning', count: 1 });
const trace = (...lines: string[]): string => `${lines.join('\n')}\n`;

describe('childWithFinding', () => {
  it('the last sample with the child, when the finding came before it', () => {
    expect(childWithFinding(trace(sample(10, true), finding(20.2), sample(30.4, true)), CODE)).toBe(
      31,
    );
  });

  it("the finding's time, when it came after the last sample with the child", () => {
    expect(childWithFinding(trace(sample(10, true), finding(20.2)), CODE)).toBe(21);
    // The stop's sample, the child gone, after the finding: the finding's time still.
    expect(childWithFinding(trace(sample(10, true), finding(20.2), sample(40, false)), CODE)).toBe(
      21,
    );
  });

  it('no moment when the child was gone before the finding came', () => {
    const gone = trace(sample(10, true), sample(15, false), finding(20.2));
    expect(() => childWithFinding(gone, CODE)).toThrow(/gone from the tree before/);
    // Also when a later sample lacks it too (the stop's, the server a zombie): the first one
    // after the child's last is the one that counts.
    const later = trace(sample(10, true), sample(15, false), finding(20.2), sample(40, false));
    expect(() => childWithFinding(later, CODE)).toThrow(/gone from the tree before/);
  });

  it('a childless sample before the child came does not count', () => {
    expect(childWithFinding(trace(sample(5, false), sample(10, true), finding(20.2)), CODE)).toBe(
      21,
    );
  });

  it('says which is missing', () => {
    expect(() => childWithFinding(trace(sample(10, false), finding(20)), CODE)).toThrow(
      /no sample with the child/,
    );
    expect(() => childWithFinding(trace(sample(10, true), finding(20, 'other')), CODE)).toThrow(
      `no ${CODE} finding`,
    );
  });
});
