import { DomainError } from '../common/errors/domain-error.js';
import { contrastRatio } from './contrast.js';

/** The colours a brand may set, each a design-system token (src/common/design/design.css). */
export const COLOR_KEYS = ['primary', 'onPrimary', 'background', 'surface', 'text', 'link'] as const;
export type ColorKey = (typeof COLOR_KEYS)[number];
export type Palette = Partial<Record<ColorKey, string>>;

/** The custom property each colour sets. */
export const COLOR_TOKENS: Record<ColorKey, string> = {
  primary: '--pc-primary',
  onPrimary: '--pc-on-primary',
  background: '--pc-bg',
  surface: '--pc-surface',
  text: '--pc-text',
  link: '--pc-link',
};

/** The design system's own colours (design.css), which a brand's missing keys keep. */
const DEFAULTS: Record<'light' | 'dark', Record<ColorKey, string>> = {
  light: { primary: '#1d4ed8', onPrimary: '#ffffff', background: '#f4f5f7', surface: '#ffffff', text: '#171a1f', link: '#1d4ed8' },
  dark: { primary: '#8fb2ff', onPrimary: '#0b1220', background: '#0e1014', surface: '#171a20', text: '#e8eaee', link: '#9dbcff' },
};

/**
 * The pairs a page shows one on the other and the ratio each needs (WCAG 2.2 AA): text 4.5:1 (SC 1.4.3), a
 * control's boundary 3:1 against what surrounds it (SC 1.4.11).
 */
const PAIRS: { fg: ColorKey; bg: ColorKey; min: number }[] = [
  { fg: 'text', bg: 'surface', min: 4.5 },
  { fg: 'text', bg: 'background', min: 4.5 },
  { fg: 'onPrimary', bg: 'primary', min: 4.5 },
  { fg: 'link', bg: 'surface', min: 4.5 },
  { fg: 'primary', bg: 'surface', min: 3 },
];

const HEX = /^#[0-9a-f]{6}$/;

/** A palette as sent: only known keys, each strictly `#rrggbb` (lower-cased), so nothing but a colour reaches CSS. */
export function paletteOf(field: 'colors' | 'dark', value: unknown): Palette | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw DomainError.invalidField(field, `${field} must be an object of colours`);
  const palette: Palette = {};
  for (const [key, colour] of Object.entries(value)) {
    if (!(COLOR_KEYS as readonly string[]).includes(key))
      throw DomainError.invalidField(`${field}.${key}`, `${field}.${key} is not a colour of the design system (${COLOR_KEYS.join(', ')})`);
    if (typeof colour !== 'string' || !HEX.test(colour.toLowerCase()))
      throw DomainError.invalidField(`${field}.${key}`, `${field}.${key} must be a colour written #rrggbb`);
    palette[key as ColorKey] = colour.toLowerCase();
  }
  return palette;
}

/** Refuses a palette (over the scheme's defaults) in which a pair falls short, naming the pair and both ratios. */
export function assertContrast(field: 'colors' | 'dark', palette: Palette): void {
  const scheme = field === 'dark' ? 'dark' : 'light';
  const full = { ...DEFAULTS[scheme], ...palette };
  for (const { fg, bg, min } of PAIRS) {
    const ratio = contrastRatio(full[fg], full[bg]);
    if (ratio < min) {
      const pair = `${field}.${fg}/${field}.${bg}`;
      throw DomainError.invalidField(pair, `${pair}: contrast ${ratio.toFixed(2)}:1 is below the ${min}:1 WCAG 2.2 AA asks (docs/branding.md, "Contrast")`);
    }
  }
}
