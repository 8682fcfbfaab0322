// Server-rendered smoke tests (no DOM environment here) for the stderr panel's markup.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { StderrPanel } from './index.js';

describe('StderrPanel markup', () => {
  it('shows stripped lines, virtualized, with the skipped note', () => {
    const text = Array.from({ length: 50_000 }, (_, i) => `\u001b[31mline ${i}\u001b[0m`).join(
      '\n',
    );
    const html = renderToStaticMarkup(<StderrPanel text={text} skippedBytes={4096} />);
    expect(html).toContain('data-testid="stderr-panel"');
    expect(html).toContain('4,096 earlier bytes');
    expect(html).toContain('50,000 lines');
    expect(html).not.toContain('\u001b');
    const rows = html.match(/class="ps-stderr-line"/g) ?? [];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(100);
  });

  it('has no note when nothing was skipped, and an empty state', () => {
    const html = renderToStaticMarkup(<StderrPanel text="" skippedBytes={0} />);
    expect(html).not.toContain('data-testid="stderr-skipped"');
    expect(html).toContain('No stderr output yet.');
  });
});
