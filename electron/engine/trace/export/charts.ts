/**
 * Charts for the incident report exports: a line chart as a self-contained SVG string (no
 * script, no external resource) and a one-line Unicode sparkline for plain Markdown.
 * Pure functions of a series of (t, value) points.
 */

export interface Point {
  /** ms since the session's start. */
  t: number;
  v: number;
}

export interface ChartOptions {
  title: string;
  unit: string;
  width?: number;
  height?: number;
  color?: string;
  /** Add the SVG namespace (needed when the SVG is an image of its own, e.g. a data URI). */
  standalone?: boolean;
}

export function escapeXml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export function formatValue(v: number, unit: string): string {
  if (unit === 'B/s' || unit === 'B') {
    const suffix = unit === 'B/s' ? '/s' : '';
    if (v >= 1024 * 1024) return `${(v / 1024 / 1024).toFixed(1)} MiB${suffix}`;
    if (v >= 1024) return `${(v / 1024).toFixed(1)} KiB${suffix}`;
    return `${Math.round(v)} B${suffix}`;
  }
  return `${Number.isInteger(v) ? v : v.toFixed(1)}${unit ? ` ${unit}` : ''}`;
}

/** A line chart with its title, the max value and the time span labelled. */
export function svgLineChart(points: readonly Point[], o: ChartOptions): string {
  const w = o.width ?? 640;
  const h = o.height ?? 160;
  const pad = { left: 8, right: 8, top: 24, bottom: 20 };
  const plotW = w - pad.left - pad.right;
  const plotH = h - pad.top - pad.bottom;
  const t0 = points[0]?.t ?? 0;
  const t1 = points.at(-1)?.t ?? 0;
  const span = Math.max(1, t1 - t0);
  const max = Math.max(0, ...points.map((p) => p.v));
  const yMax = max > 0 ? max : 1;
  const xy = points.map((p) => {
    const x = pad.left + ((p.t - t0) / span) * plotW;
    const y = pad.top + plotH - (p.v / yMax) * plotH;
    return `${x.toFixed(1)},${y.toFixed(1)}`;
  });
  const ns = o.standalone ? ' xmlns="http://www.w3.org/2000/svg"' : '';
  const color = o.color ?? '#2563eb';
  const title = escapeXml(o.title);
  const parts = [
    `<svg${ns} viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${title}">`,
    `<title>${title}</title>`,
    `<rect x="0" y="0" width="${w}" height="${h}" fill="#ffffff"/>`,
    `<text x="${pad.left}" y="15" font-family="sans-serif" font-size="12" fill="#111827">${title} (max ${escapeXml(formatValue(max, o.unit))})</text>`,
    `<line x1="${pad.left}" y1="${pad.top + plotH}" x2="${w - pad.right}" y2="${pad.top + plotH}" stroke="#9ca3af"/>`,
    `<line x1="${pad.left}" y1="${pad.top}" x2="${w - pad.right}" y2="${pad.top}" stroke="#e5e7eb" stroke-dasharray="4 4"/>`,
  ];
  if (xy.length === 1) {
    const [x, y] = xy[0].split(',');
    parts.push(`<circle cx="${x}" cy="${y}" r="2" fill="${color}"/>`);
  } else if (xy.length > 1) {
    parts.push(
      `<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${xy.join(' ')}"/>`,
    );
  } else {
    parts.push(
      `<text x="${w / 2}" y="${pad.top + plotH / 2}" text-anchor="middle" font-family="sans-serif" font-size="12" fill="#6b7280">no samples</text>`,
    );
  }
  parts.push(
    `<text x="${pad.left}" y="${h - 5}" font-family="sans-serif" font-size="10" fill="#6b7280">${(t0 / 1000).toFixed(1)} s</text>`,
    `<text x="${w - pad.right}" y="${h - 5}" text-anchor="end" font-family="sans-serif" font-size="10" fill="#6b7280">${(t1 / 1000).toFixed(1)} s</text>`,
    '</svg>',
  );
  return parts.join('');
}

const BLOCKS = '▁▂▃▄▅▆▇█';

/** The series as at most `width` block characters (resampled by max per bucket). */
export function sparkline(values: readonly number[], width = 60): string {
  if (values.length === 0) return '';
  const buckets = Math.min(width, values.length);
  const per = values.length / buckets;
  const maxima: number[] = [];
  for (let b = 0; b < buckets; b++) {
    let m = 0;
    for (
      let i = Math.floor(b * per);
      i < Math.max(Math.floor((b + 1) * per), Math.floor(b * per) + 1);
      i++
    )
      m = Math.max(m, values[i] ?? 0);
    maxima.push(m);
  }
  const top = Math.max(...maxima);
  if (top <= 0) return BLOCKS[0].repeat(buckets);
  return maxima
    .map((v) => BLOCKS[Math.min(BLOCKS.length - 1, Math.floor((v / top) * (BLOCKS.length - 1)))])
    .join('');
}
