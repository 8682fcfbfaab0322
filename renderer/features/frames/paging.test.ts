import { describe, expect, it } from 'vitest';
import {
  appendPage,
  capReached,
  fullText,
  gapBytes,
  HEAD_BYTES,
  isComplete,
  KIB,
  LOAD_CAP_BYTES,
  type LoadedFrame,
  loadedBytes,
  nextPage,
  PAGE_BYTES,
  planHead,
  planTail,
  saveDecision,
  TAIL_BYTES,
  utf8Length,
  WHOLE_MAX_BYTES,
} from './paging.js';

const MIB = 1024 * KIB;

/** Simulate main answering a request for an ASCII frame of `total` bytes. */
function page(offset: number, length: number, total: number) {
  const start = Math.min(offset, total);
  const end = Math.min(total, start + length);
  return { offset: start, length: end - start, text: 'x'.repeat(end - start) };
}

/** Load a frame the way useFramePages does: head, then tail. */
function open(total: number): LoadedFrame {
  const h = planHead(total);
  const head = page(h.offset, h.length, total);
  const frame: LoadedFrame = { totalBytes: total, sha256: null, head, tail: null };
  const t = planTail(total, head.offset + head.length);
  return t ? { ...frame, tail: page(t.offset, t.length, total) } : frame;
}

/** Press "load more" until it stops; returns the frame and every request made. */
function loadAll(frame: LoadedFrame, cap = LOAD_CAP_BYTES) {
  const requests: { offset: number; length: number }[] = [];
  let current = frame;
  for (let req = nextPage(current, cap); req; req = nextPage(current, cap)) {
    requests.push(req);
    current = appendPage(current, page(req.offset, req.length, frame.totalBytes));
  }
  return { frame: current, requests };
}

describe('planHead / planTail', () => {
  it('fetches small frames whole in one request, with no tail', () => {
    for (const total of [0, 1, 100, HEAD_BYTES, HEAD_BYTES + 1, WHOLE_MAX_BYTES]) {
      expect(planHead(total)).toEqual({ offset: 0, length: total });
      expect(planTail(total, total)).toBeNull();
    }
  });

  it('fetches a 64 KiB head and a 16 KiB tail for larger frames', () => {
    const total = WHOLE_MAX_BYTES + 1;
    expect(planHead(total)).toEqual({ offset: 0, length: HEAD_BYTES });
    expect(planTail(total, HEAD_BYTES)).toEqual({ offset: total - TAIL_BYTES, length: TAIL_BYTES });
  });

  it('never overlaps the tail with the head', () => {
    expect(planTail(HEAD_BYTES + 100, HEAD_BYTES)).toEqual({ offset: HEAD_BYTES, length: 100 });
  });

  it('asks for ~80 KiB of a 64 MiB frame, never the whole frame', () => {
    const f = open(64 * MIB);
    expect(loadedBytes(f)).toBe(HEAD_BYTES + TAIL_BYTES);
    expect(f.tail?.offset).toBe(64 * MIB - TAIL_BYTES);
    expect(gapBytes(f)).toBe(64 * MIB - HEAD_BYTES - TAIL_BYTES);
    expect(isComplete(f)).toBe(false);
  });
});

describe('nextPage / appendPage', () => {
  it('is done at once for small frames', () => {
    const f = open(10 * KIB);
    expect(isComplete(f)).toBe(true);
    expect(nextPage(f)).toBeNull();
    expect(fullText(f)).toHaveLength(10 * KIB);
  });

  it('pages forward by 64 KiB and stops at the 1 MiB cap on a 64 MiB frame', () => {
    const { frame, requests } = loadAll(open(64 * MIB));
    expect(requests[0]).toEqual({ offset: HEAD_BYTES, length: PAGE_BYTES });
    expect(requests.every((r) => r.length <= PAGE_BYTES)).toBe(true);
    expect(loadedBytes(frame)).toBe(LOAD_CAP_BYTES);
    expect(capReached(frame)).toBe(true);
    expect(isComplete(frame)).toBe(false);
    expect(fullText(frame)).toBeNull();
    // Every request continues exactly where the last one ended.
    requests.forEach((r, i) => {
      expect(r.offset).toBe(HEAD_BYTES + i * PAGE_BYTES);
    });
  });

  it('closes the gap exactly for a frame under the cap (last page shorter)', () => {
    const total = 300 * KIB + 123;
    const { frame, requests } = loadAll(open(total));
    expect(isComplete(frame)).toBe(true);
    expect(capReached(frame)).toBe(false);
    expect(loadedBytes(frame)).toBe(total);
    expect(fullText(frame)).toHaveLength(total);
    const last = requests[requests.length - 1];
    expect(last.offset + last.length).toBe(total - TAIL_BYTES);
  });

  it('respects a custom cap mid-page', () => {
    const { frame } = loadAll(open(10 * MIB), HEAD_BYTES + TAIL_BYTES + 10);
    expect(loadedBytes(frame)).toBe(HEAD_BYTES + TAIL_BYTES + 10);
  });

  it('ignores pages that do not continue the head, or are empty', () => {
    const f = open(2 * MIB);
    expect(appendPage(f, { offset: 0, length: 10, text: 'y'.repeat(10) })).toBe(f);
    expect(appendPage(f, { offset: HEAD_BYTES, length: 0, text: '' })).toBe(f);
  });
});

describe('utf8Length', () => {
  it('counts like TextEncoder, lone surrogates included', () => {
    for (const s of ['', 'ascii', 'ünï', '€', '🚀x', '\u2028', '\ud800', 'a\udc00b', '\ud83d']) {
      expect(utf8Length(s)).toBe(new TextEncoder().encode(s).length);
    }
  });
});

describe('saveDecision', () => {
  it('allows saving a small, held, fully loaded UTF-8 frame', () => {
    const f = open(500);
    expect(saveDecision(f, true)).toEqual({ ok: true, text: 'x'.repeat(500) });
  });

  it('refuses when not held, still loading, too large or not fully loaded', () => {
    expect(saveDecision(open(500), false)).toMatchObject({ ok: false });
    expect(saveDecision(null, true)).toMatchObject({ ok: false });
    expect(saveDecision(open(2 * MIB), true)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('1 MiB'),
    });
    expect(saveDecision(open(WHOLE_MAX_BYTES + 1), true)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('Load more'),
    });
  });

  it('allows a 1 MiB frame once "load more" has loaded all of it', () => {
    const { frame } = loadAll(open(MIB));
    expect(saveDecision(frame, true).ok).toBe(true);
  });

  it('refuses when the text would not re-encode to the same bytes', () => {
    // 3 bytes in main, but decoding replaced an invalid byte: U+FFFD is 3 bytes, "ab" + FFFD = 5.
    const f: LoadedFrame = {
      totalBytes: 3,
      sha256: null,
      head: { offset: 0, length: 3, text: 'ab\ufffd' },
      tail: null,
    };
    expect(saveDecision(f, true)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('UTF-8'),
    });
  });
});
