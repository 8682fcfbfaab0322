import { afterEach, describe, expect, it, vi } from 'vitest';
import { EarlyAnswers } from './host-traffic.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('EarlyAnswers (a tapped answer before its request)', () => {
  it('routes a held answer when its request is entered, once', () => {
    const early = new EarlyAnswers();
    const routed: string[] = [];
    early.hold(8, () => routed.push('8'));
    early.hold('a', () => routed.push('a'));
    expect(routed).toEqual([]);
    expect(early.size).toBe(2);
    early.release(8);
    early.release(8);
    early.release('8'); // another id: a string is not the number
    expect(routed).toEqual(['8']);
    early.release('a');
    expect(routed).toEqual(['8', 'a']);
    expect(early.size).toBe(0);
  });

  it('lets an answer go as it is after its wait (an unknown id then), and a second at once', () => {
    vi.useFakeTimers();
    const early = new EarlyAnswers();
    const routed: string[] = [];
    early.hold(1, () => routed.push('first'));
    early.hold(1, () => routed.push('second'));
    expect(routed).toEqual(['second']);
    vi.advanceTimersByTime(1999);
    expect(routed).toEqual(['second']);
    vi.advanceTimersByTime(1);
    expect(routed).toEqual(['second', 'first']);
    early.release(1);
    expect(routed).toEqual(['second', 'first']);
  });

  it('holds at most 256; dispose routes what still waits', () => {
    vi.useFakeTimers();
    const early = new EarlyAnswers();
    let routed = 0;
    for (let i = 0; i < 300; i++) early.hold(i, () => routed++);
    expect(early.size).toBe(256);
    expect(routed).toBe(44);
    early.dispose();
    expect(routed).toBe(300);
    expect(early.size).toBe(0);
    vi.advanceTimersByTime(5000);
    expect(routed).toBe(300);
  });
});
