// Server-rendered smoke tests (no DOM environment here): the markup contract that the app
// shell and the end-to-end tests rely on, and the row bound for a 100,000-frame log.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { FrameSummary } from '../../../shared/frames.js';
import { FramesPanel, FrameViewer } from './index.js';

function frame(seq: number, patch: Partial<FrameSummary> = {}): FrameSummary {
  return {
    seq,
    dir: 'in',
    t: seq * 1.5,
    offset: 0,
    bytes: 2048,
    kind: 'response',
    preview: '{"jsonrpc":"2.0"}',
    held: true,
    ...patch,
  };
}

const noop = (): void => {};

describe('FramesPanel markup', () => {
  it('renders only a window of rows for 100,000 frames', () => {
    const frames = Array.from({ length: 100_000 }, (_, i) => frame(i + 1));
    const html = renderToStaticMarkup(<FramesPanel frames={frames} onOpen={noop} />);
    expect(html).toContain('data-testid="frames-log"');
    const rows = html.match(/data-testid="frame-row"/g) ?? [];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(100);
    expect(html).toContain('100,000 frames');
  });

  it('marks problem rows with data-kind, a class and the problem text', () => {
    const frames = [
      frame(1, { dir: 'out', kind: 'request', id: 7, method: 'tools/list' }),
      frame(2, {
        kind: 'parse-error',
        problem: 'non-JSON line on stdout',
        preview: 'hello\nworld',
      }),
      frame(3, { kind: 'oversize', bytes: 0, problem: 'over maxFrameBytes' }),
    ];
    const html = renderToStaticMarkup(
      <FramesPanel frames={frames} onOpen={noop} selectedSeq={1} />,
    );
    expect(html).toMatch(
      /class="[^"]*ps-frame-row--problem[^"]*"[^>]*data-seq="2" data-kind="parse-error"/,
    );
    expect(html).toContain('non-JSON line on stdout');
    expect(html).toContain('hello world');
    expect(html).toContain('over max');
    expect(html).toContain('0.002 s');
    expect(html).toContain('→');
    expect(html).toContain('title="2,048 bytes"');
    expect(html).toMatch(/ps-frame-row--selected[^>]*data-seq="1"/);
  });

  it('says so when there are no frames', () => {
    expect(renderToStaticMarkup(<FramesPanel frames={[]} onOpen={noop} />)).toContain(
      'No frames yet.',
    );
  });
});

describe('FrameViewer markup', () => {
  it('starts in the loading state with the header facts', () => {
    const html = renderToStaticMarkup(
      <FrameViewer
        summary={frame(42, { bytes: 64 * 1024 * 1024, method: 'tools/call', id: 'a' })}
        fetchPage={() => new Promise(noop)}
        onClose={noop}
      />,
    );
    expect(html).toContain('data-testid="frame-viewer"');
    expect(html).toContain('data-state="loading"');
    expect(html).toContain('Frame #42');
    expect(html).toContain('67,108,864 bytes');
    expect(html).toContain('Save raw bytes');
  });
});
