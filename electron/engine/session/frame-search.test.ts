/**
 * Payload search (frame-search.ts): a match is found wherever the chunks a frame arrived in or
 * the search's windows cut it, in multibyte text, case-folded for ASCII; snippets never cut a
 * character; a search over the store pages by budget and by hits without losing or repeating
 * a frame, finds a string in the 5,000th frame, and stops when a newer search supersedes it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { info } from '../../../test/fixtures/frame-store-helpers.js';
import { ChunkedBytes } from '../transport/frame-bytes.js';
import {
  findFirst,
  findInFrame,
  needleOf,
  type SearchOptions,
  searchFrames,
  snippetAt,
  storeSource,
} from './frame-search.js';
import { FrameStore } from './frame-store.js';

/** `bytes` cut at the given points (sorted, deduplicated) into chunks, as a pipe delivers. */
function chunked(bytes: Buffer, cuts: number[]): ChunkedBytes {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let at = 0;
  for (const p of [...points, bytes.length]) {
    if (p > at) chunks.push(Buffer.from(bytes.subarray(at, p)));
    at = Math.max(at, p);
  }
  return new ChunkedBytes(chunks.length ? chunks : [Buffer.alloc(0)]);
}

const ascii = (b: Buffer): Buffer => Buffer.from(b.map((x) => (x >= 65 && x <= 90 ? x + 32 : x)));

/** Text with multibyte characters, ASCII letters of both cases, JSON-ish punctuation. */
const text = fc.string({ unit: fc.constantFrom(...'aAbBzZ "{}:\\é€😀\u2028x'), maxLength: 60 });

describe('findFirst over chunks and windows (properties)', () => {
  it('finds what Buffer.indexOf finds, wherever chunks and windows cut the frame', () => {
    fc.assert(
      fc.property(
        text,
        text.filter((n) => n.length > 0),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.integer({ min: 1, max: 16 }),
        fc.boolean(),
        (hay, query, cuts, windowBytes, caseSensitive) => {
          const bytes = Buffer.from(hay, 'utf8');
          const n = needleOf(query, caseSensitive);
          const expected = (caseSensitive ? bytes : ascii(bytes)).indexOf(n.bytes);
          const r = findFirst(chunked(bytes, cuts), n, 0, bytes.length + 1, windowBytes);
          expect(r.at).toBe(expected === -1 ? null : expected);
        },
      ),
      { numRuns: 600 },
    );
  });

  it('a query planted across a chunk boundary is found at its offset', () => {
    fc.assert(
      fc.property(text, text, fc.nat(), (before, after, cutAt) => {
        const query = 'héllo😀';
        const bytes = Buffer.from(before + query + after, 'utf8');
        const at = Buffer.byteLength(before);
        const inside = at + 1 + (cutAt % (Buffer.byteLength(query) - 1));
        const first = Buffer.from(before, 'utf8').indexOf(Buffer.from(query));
        const r = findFirst(chunked(bytes, [inside]), needleOf(query, true), 0, bytes.length);
        expect(r.at).toBe(first === -1 ? at : first);
      }),
    );
  });

  it('findInFrame returns every match, in order, without overlaps, paging by hits', () => {
    fc.assert(
      fc.property(
        text,
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.integer({ min: 1, max: 4 }),
        (hay, cuts, max) => {
          const bytes = Buffer.from(`${hay}aZ${hay}az`, 'utf8');
          const n = needleOf('az', false);
          const expected: number[] = [];
          for (
            let i = ascii(bytes).indexOf(n.bytes);
            i !== -1;
            i = ascii(bytes).indexOf(n.bytes, i + 2)
          )
            expected.push(i);
          const data = chunked(bytes, cuts);
          const seen: number[] = [];
          let from: number | null = 0;
          while (from !== null) {
            const page = findInFrame(data, n, from, max);
            expect(page.hits.length).toBeLessThanOrEqual(max);
            seen.push(...page.hits.map((h) => h.offset));
            from = page.next;
          }
          expect(seen).toEqual(expected);
        },
      ),
    );
  });

  it('a snippet holds the match where it says and never cuts a character', () => {
    fc.assert(
      fc.property(text, text, fc.integer({ min: 0, max: 20 }), (before, after, context) => {
        const query = 'é€x';
        const bytes = Buffer.from(`${before}${query}${after}`, 'utf8');
        const at = bytes.indexOf(Buffer.from(query));
        const s = snippetAt(
          chunked(bytes, [at + 1, at + 3]),
          at,
          Buffer.byteLength(query),
          context,
          context,
        );
        expect(s.text.slice(s.matchStart, s.matchStart + s.matchLength)).toBe(query);
        expect(s.text).not.toContain('\ufffd');
      }),
    );
  });
});

/** A store of `n` small frames; frame `k` (1-based) says `frame k`, and `plant` more. */
function store(n: number, plant: Record<number, string> = {}): FrameStore {
  const s = new FrameStore();
  for (let k = 1; k <= n; k++) {
    const body = `{"jsonrpc":"2.0","method":"notifications/message","params":{"n":${k}${plant[k] ? `,"text":${JSON.stringify(plant[k])}` : ''}}}`;
    s.add(
      info({ dir: 'in', t: k, kind: 'notification', method: 'notifications/message' }),
      Buffer.from(body),
    );
  }
  return s;
}

const opts = (over: Partial<SearchOptions> = {}): SearchOptions => ({
  needle: needleOf('hello', false),
  from: null,
  maxHits: 200,
  budgetMs: 1000,
  isCurrent: () => true,
  ...over,
});

describe('searchFrames over the store', () => {
  it('finds a string in the 5,000th of 6,000 frames, with a snippet around it', async () => {
    const s = store(6000, { 5000: 'say Hello, world' });
    const page = await searchFrames(storeSource(s), opts());
    expect(page.hits.map((h) => h.seq)).toEqual([5000]);
    const hit = page.hits[0];
    expect(hit.text.slice(hit.matchStart, hit.matchStart + hit.matchLength)).toBe('Hello');
    expect(hit).toMatchObject({ method: 'notifications/message', dir: 'in', kind: 'notification' });
    expect(page.next).toBeNull();
    expect(page.scannedFrames).toBe(6000);
  });

  it('pages by hits and by time without losing or repeating a frame', async () => {
    const plant: Record<number, string> = {};
    for (let k = 3; k <= 3000; k += 7) plant[k] = `hello ${k}`;
    const s = store(3000, plant);
    const seen: number[] = [];
    let from: SearchOptions['from'] = null;
    let pages = 0;
    for (;;) {
      const page = await searchFrames(storeSource(s), opts({ from, maxHits: 50, budgetMs: 1 }));
      seen.push(...page.hits.map((h) => h.seq));
      pages += 1;
      if (page.next === null) break;
      from = page.next;
    }
    expect(seen).toEqual(Object.keys(plant).map(Number));
    expect(pages).toBeGreaterThan(1);
  });

  it('a large frame is searched across pages, its match found once', async () => {
    const s = new FrameStore();
    const big = Buffer.alloc(12 * 1024 * 1024, 0x61);
    Buffer.from('needle').copy(big, 10 * 1024 * 1024 + 3);
    s.add(info(), chunked(big, [4 * 1024 * 1024 - 2, 10 * 1024 * 1024 + 5]));
    let from: SearchOptions['from'] = null;
    const hits: number[] = [];
    for (let i = 0; i < 20; i++) {
      const page = await searchFrames(
        storeSource(s),
        opts({ needle: needleOf('needle', true), from, budgetMs: 10 }),
      );
      hits.push(...page.hits.map((h) => h.offset));
      if (page.next === null) break;
      from = page.next;
    }
    expect(hits).toEqual([10 * 1024 * 1024 + 3]);
  });

  it('stops at its next slice once a newer search supersedes it', async () => {
    const s = store(20_000);
    let current = true;
    const running = searchFrames(
      storeSource(s),
      opts({ needle: needleOf('no such text', true), isCurrent: () => current }),
    );
    current = false;
    const page = await running;
    expect(page.superseded).toBe(true);
    expect(page.next).not.toBeNull();
    expect(page.scannedFrames).toBeLessThan(20_000);
  });

  it('filters by direction, and searches the preview of a frame whose bytes were dropped', async () => {
    const s = new FrameStore(64, 100); // 64 bytes held at most: older frames lose their bytes
    s.add(
      info({ dir: 'out', kind: 'request', method: 'tools/call' }),
      Buffer.from('{"x":"hello out"}'),
    );
    s.add(info({ dir: 'in' }), Buffer.from(`{"y":"hello in ${'p'.repeat(40)}"}`));
    s.add(info({ dir: 'in' }), Buffer.from(`{"z":"${'q'.repeat(30)}"}`));
    const all = await searchFrames(storeSource(s), opts());
    expect(all.hits.map((h) => [h.seq, h.previewOnly === true])).toEqual([
      [1, true],
      [2, true],
    ]);
    expect(all.previewOnly).toBe(2);
    const out = await searchFrames(storeSource(s), opts({ dir: 'out' }));
    expect(out.hits.map((h) => h.seq)).toEqual([1]);
  });
});
