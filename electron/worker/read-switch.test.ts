import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ReadSwitch } from './read-switch.js';

describe('ReadSwitch', () => {
  it('pauses and resumes the stream once per change, and sums the time it was off', () => {
    let t = 0;
    const s = new ReadSwitch(() => t);
    const stdout = new PassThrough();
    const calls: string[] = [];
    stdout.pause = () => {
      calls.push('pause');
      return stdout;
    };
    stdout.resume = () => {
      calls.push('resume');
      return stdout;
    };
    expect(s.reading).toBe(true);
    expect(s.notReading()).toEqual({ since: null, ms: 0 });
    t = 10;
    s.set(false, stdout);
    s.set(false, stdout); // no change: no second pause
    t = 25;
    expect(s.notReading()).toEqual({ since: 10, ms: 15 });
    s.set(true, stdout);
    t = 40;
    s.set(false, stdout);
    t = 45;
    expect(s.notReading()).toEqual({ since: 40, ms: 20 });
    expect(s.notReading(50)).toEqual({ since: 40, ms: 25 });
    s.set(true, null); // no stream yet: the state still changes
    expect(s.reading).toBe(true);
    expect(s.notReading()).toEqual({ since: null, ms: 20 });
    expect(calls).toEqual(['pause', 'resume', 'pause']);
  });
});
