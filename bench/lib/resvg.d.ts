/**
 * The part of @resvg/resvg-js the chart uses, so the benchmark builds before that package is installed
 * (chart.ts imports it lazily and falls back to the SVG when it is missing).
 */
declare module '@resvg/resvg-js' {
  export class Resvg {
    constructor(svg: string, options?: { font?: { loadSystemFonts?: boolean; defaultFontFamily?: string } });
    render(): { asPng(): Buffer };
  }
}
