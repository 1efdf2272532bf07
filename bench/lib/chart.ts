/**
 * The chart of BENCHMARKS.md: Portcullis (WORKERS=1) against its peer per scenario, horizontal bars on a
 * logarithmic axis (the figures span from a few requests to thousands per second). Built as an SVG
 * string, rendered to PNG with @resvg/resvg-js.
 */
import { Resvg } from '@resvg/resvg-js';
import type { Measurement } from './measurement.js';
import { headline, peerFor } from './targets.js';

interface Pair {
  label: string;
  unit: string;
  ours: number;
  peer: number;
  peerName: string;
}

export function pairs(ms: Measurement[]): Pair[] {
  const result: Pair[] = [];
  for (const scenario of [...new Set(ms.filter((m) => m.kind === 'peer').map((m) => m.scenario))]) {
    const ours = headline(ms, scenario, (m) => m.kind === 'portcullis' && m.workers === 1);
    const peer = ours && peerFor(ms, ours);
    if (ours && peer) result.push({ label: ours.label, unit: ours.unit, ours: ours.rate, peer: peer.rate, peerName: peer.server });
  }
  return result;
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function chartSvg(data: Pair[], title: string): string {
  const [left, width, barHeight, top] = [300, 860, 14, 50];
  const max = Math.max(10, ...data.flatMap((p) => [p.ours, p.peer]));
  const decades = Math.ceil(Math.log10(max));
  const x = (v: number) => left + (Math.log10(Math.max(1, v)) / decades) * (width - left - 90);
  const height = top + data.length * (2 * barHeight + 14) + 30;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="DejaVu Sans, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
    `<rect x="${left}" y="28" width="12" height="10" fill="#2b6cb0"/><text x="${left + 16}" y="37">Portcullis WORKERS=1</text>`,
    `<rect x="${left + 170}" y="28" width="12" height="10" fill="#dd8452"/><text x="${left + 186}" y="37">peer (raw oidc-provider / scimmy)</text>`,
  ];
  for (let d = 0; d <= decades; d++) {
    parts.push(`<line x1="${x(10 ** d)}" y1="${top - 4}" x2="${x(10 ** d)}" y2="${height - 24}" stroke="#ddd"/>`);
    parts.push(`<text x="${x(10 ** d)}" y="${height - 10}" text-anchor="middle" fill="#555">${(10 ** d).toLocaleString('en')}</text>`);
  }
  data.forEach((p, i) => {
    const y = top + i * (2 * barHeight + 14);
    parts.push(`<text x="${left - 8}" y="${y + barHeight + 4}" text-anchor="end">${escapeXml(p.label)} (${p.unit})</text>`);
    for (const [k, value, colour] of [
      [0, p.ours, '#2b6cb0'],
      [1, p.peer, '#dd8452'],
    ] as const) {
      const yy = y + k * barHeight;
      parts.push(`<rect x="${left}" y="${yy}" width="${Math.max(1, x(value) - left)}" height="${barHeight - 2}" fill="${colour}"/>`);
      parts.push(
        `<text x="${x(value) + 4}" y="${yy + barHeight - 4}" font-size="10">${value.toLocaleString('en', { maximumFractionDigits: value < 100 ? 1 : 0 })}</text>`,
      );
    }
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/** PNG bytes of the SVG. */
export function renderPng(svg: string): Buffer {
  return new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).render().asPng();
}
