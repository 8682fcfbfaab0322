#!/usr/bin/env node
// Generates Pipescope's app icon (an original design: a pipe carrying frames, under a lens) as
// assets/icon.svg, assets/icon.png (256 px, the window icon at run time) and build/icon.png
// (1024 px, electron-builder's source for the macOS, Windows and Linux icon sets). Plain Node: the
// shapes are signed-distance functions, rasterized with 4x4 supersampling and written as an RGBA
// PNG with zlib. The outputs are committed source assets; rerun after changing the design:
//   node build/make-icons.mjs
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

// All geometry in unit coordinates (0..1), y downwards.
const BG = { x0: 0.09, y0: 0.09, x1: 0.91, y1: 0.91, r: 0.19 };
const PIPE = { ax: 0.17, ay: 0.56, bx: 0.83, by: 0.56, r: 0.085 };
const CHANNEL = { ax: 0.17, ay: 0.56, bx: 0.83, by: 0.56, r: 0.05 };
const FRAMES = [
  { ax: 0.21, bx: 0.27 },
  { ax: 0.33, bx: 0.43 },
  { ax: 0.49, bx: 0.66 },
];
const FRAME_R = 0.028;
const LENS = { cx: 0.6, cy: 0.43, r: 0.165, w: 0.042 };
const HANDLE = { ax: 0.72, ay: 0.55, bx: 0.8, by: 0.63, r: 0.032 };
const COLORS = {
  bgTop: [0x24, 0x2f, 0x3f],
  bgBottom: [0x12, 0x18, 0x21],
  pipe: [0x3a, 0x4b, 0x61],
  channel: [0x0b, 0x10, 0x16],
  frame: [0x3f, 0xd0, 0xc9],
  lensTint: [0xff, 0xff, 0xff],
  lens: [0xe9, 0xef, 0xf6],
};

function roundedRect(x, y, b) {
  const cx = (b.x0 + b.x1) / 2;
  const cy = (b.y0 + b.y1) / 2;
  const qx = Math.abs(x - cx) - ((b.x1 - b.x0) / 2 - b.r);
  const qy = Math.abs(y - cy) - ((b.y1 - b.y0) / 2 - b.r);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - b.r;
}

function capsule(x, y, s) {
  const dx = s.bx - s.ax;
  const dy = s.by - s.ay;
  const t = Math.max(0, Math.min(1, ((x - s.ax) * dx + (y - s.ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(x - (s.ax + t * dx), y - (s.ay + t * dy)) - s.r;
}

/** Layers bottom to top: [signed distance, rgb, alpha]. */
function layers(x, y) {
  const g = (y - BG.y0) / (BG.y1 - BG.y0);
  const bg = COLORS.bgTop.map((c, i) => c + (COLORS.bgBottom[i] - c) * Math.min(1, Math.max(0, g)));
  const lensDist = Math.hypot(x - LENS.cx, y - LENS.cy);
  return [
    [roundedRect(x, y, BG), bg, 1],
    [capsule(x, y, PIPE), COLORS.pipe, 1],
    [capsule(x, y, CHANNEL), COLORS.channel, 1],
    ...FRAMES.map((f) => [
      capsule(x, y, { ax: f.ax, ay: PIPE.ay, bx: f.bx, by: PIPE.ay, r: FRAME_R }),
      COLORS.frame,
      1,
    ]),
    [lensDist - (LENS.r - LENS.w / 2), COLORS.lensTint, 0.1],
    [Math.abs(lensDist - LENS.r) - LENS.w / 2, COLORS.lens, 1],
    [capsule(x, y, HANDLE), COLORS.lens, 1],
  ];
}

function render(size) {
  const px = Buffer.alloc(size * size * 4);
  const n = 4;
  for (let py = 0; py < size; py++) {
    for (let pxi = 0; pxi < size; pxi++) {
      let r = 0;
      let gg = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < n; sy++) {
        for (let sx = 0; sx < n; sx++) {
          const x = (pxi + (sx + 0.5) / n) / size;
          const y = (py + (sy + 0.5) / n) / size;
          let cr = 0;
          let cg = 0;
          let cb = 0;
          let ca = 0;
          for (const [d, rgb, alpha] of layers(x, y)) {
            if (d > 0) continue;
            cr = rgb[0] * alpha + cr * (1 - alpha);
            cg = rgb[1] * alpha + cg * (1 - alpha);
            cb = rgb[2] * alpha + cb * (1 - alpha);
            ca = alpha + ca * (1 - alpha);
          }
          r += cr;
          gg += cg;
          b += cb;
          a += ca;
        }
      }
      const i = (py * size + pxi) * 4;
      const k = n * n;
      // colours were composited premultiplied; un-premultiply for PNG
      const alpha = a / k;
      px[i] = alpha > 0 ? Math.round(r / k / alpha) : 0;
      px[i + 1] = alpha > 0 ? Math.round(gg / k / alpha) : 0;
      px[i + 2] = alpha > 0 ? Math.round(b / k / alpha) : 0;
      px[i + 3] = Math.round(alpha * 255);
    }
  }
  return px;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

function png(size) {
  const rgba = render(size);
  const raw = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0; // filter: none
    rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function svg() {
  const u = (v) => +(v * 1024).toFixed(1);
  const hex = (rgb) => `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
  const line = (s, color) =>
    `<line x1="${u(s.ax)}" y1="${u(s.ay)}" x2="${u(s.bx)}" y2="${u(s.by)}" stroke="${color}" stroke-width="${u(2 * s.r)}" stroke-linecap="round"/>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1024 1024" width="1024" height="1024">
  <title>Pipescope</title>
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="${hex(COLORS.bgTop)}"/>
      <stop offset="1" stop-color="${hex(COLORS.bgBottom)}"/>
    </linearGradient>
  </defs>
  <rect x="${u(BG.x0)}" y="${u(BG.y0)}" width="${u(BG.x1 - BG.x0)}" height="${u(BG.y1 - BG.y0)}" rx="${u(BG.r)}" fill="url(#bg)"/>
  ${line(PIPE, hex(COLORS.pipe))}
  ${line(CHANNEL, hex(COLORS.channel))}
  ${FRAMES.map((f) => line({ ax: f.ax, ay: PIPE.ay, bx: f.bx, by: PIPE.ay, r: FRAME_R }, hex(COLORS.frame))).join('\n  ')}
  <circle cx="${u(LENS.cx)}" cy="${u(LENS.cy)}" r="${u(LENS.r - LENS.w / 2)}" fill="#ffffff" fill-opacity="0.1"/>
  <circle cx="${u(LENS.cx)}" cy="${u(LENS.cy)}" r="${u(LENS.r)}" fill="none" stroke="${hex(COLORS.lens)}" stroke-width="${u(LENS.w)}"/>
  ${line(HANDLE, hex(COLORS.lens))}
</svg>
`;
}

const root = new URL('../', import.meta.url);
writeFileSync(new URL('assets/icon.svg', root), svg());
writeFileSync(new URL('assets/icon.png', root), png(256));
writeFileSync(new URL('build/icon.png', root), png(1024));
process.stdout.write('wrote assets/icon.svg, assets/icon.png (256), build/icon.png (1024)\n');
