import { describe, expect, it } from 'vitest';
import { HOST_PROFILE_IDS } from '../../../shared/host-profiles';
import { durationText, maxFrameMiBFor, PROFILE_OPTIONS, profileSummary } from './host-profile-view';

describe('profileSummary', () => {
  it('says the SDK closes the connection past 10 MiB, with its timeout', () => {
    expect(profileSummary('ts-sdk')).toBe(
      '10 MiB line cap, closes the connection past it · 1 min request timeout · no result limit known',
    );
  });

  it('marks reported numbers and says what is not known', () => {
    const s = profileSummary('claude-desktop');
    expect(s).toContain('line cap not known');
    expect(s).toContain('results up to 1 MiB (reported)');
    expect(profileSummary('claude-code')).toContain('results up to 25,000 tokens');
    expect(profileSummary('python-sdk')).toContain('no line cap');
    expect(profileSummary('python-sdk')).toContain('no request timeout');
  });
});

describe('durationText', () => {
  it('reads as the docs say it, approximate when not whole', () => {
    expect(durationText(60_000)).toBe('1 min');
    expect(durationText(30_000)).toBe('30 s');
    expect(durationText(300_000)).toBe('5 min');
    expect(durationText(100_000_000)).toBe('≈ 28 h');
  });
});

describe('picker options', () => {
  it('offers none first, then every profile once', () => {
    expect(PROFILE_OPTIONS[0].id).toBe('');
    expect(PROFILE_OPTIONS.slice(1).map((o) => o.id)).toEqual([...HOST_PROFILE_IDS]);
  });

  it('fills the max frame field from a profile’s line cap, else the default', () => {
    expect(maxFrameMiBFor('ts-sdk')).toBe('10');
    expect(maxFrameMiBFor('claude-desktop')).toBe('128');
    expect(maxFrameMiBFor(null)).toBe('128');
  });
});
