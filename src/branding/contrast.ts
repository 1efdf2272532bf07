/**
 * WCAG 2.2 contrast (docs/branding.md, "Contrast"): the relative luminance of an sRGB colour and the ratio of two,
 * as WCAG 2.2 defines them ("relative luminance", "contrast ratio"; Success Criteria 1.4.3 and 1.4.11).
 */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light + 0.05) / (dark + 0.05);
}

/** Relative luminance of `#rrggbb`: each channel linearised (the sRGB transfer function), weighted 0.2126/0.7152/0.0722. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
