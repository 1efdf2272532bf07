import { Injectable } from '@nestjs/common';
import type { Request, Response, Router } from 'express';
import { DataSource } from 'typeorm';
import { esc } from '../common/text/html-escape.js';
import { BrandLookup } from './brand-lookup.js';
import type { Brand } from './brand-lookup.js';
import { COLOR_KEYS, COLOR_TOKENS } from './branding-palette.js';
import type { Palette } from './branding-palette.js';
import { brandImage } from './branding.store.js';
import { BrandingPreviews, PREVIEW_LOGO_FROM } from './branding-preview.js';

export const BRAND_STYLESHEET_PATH = '/ui/login/assets/brand.css';
export const BRAND_LOGO_PATH = '/ui/login/assets/brand-logo.png';

const FONTS = { system: undefined, serif: "ui-serif, Georgia, Cambria, 'Times New Roman', serif", mono: 'var(--pc-mono)' } as const;

/**
 * A brand's stylesheet (docs/branding.md, "Where a brand shows"): only the design system's custom properties, each
 * value a checked `#rrggbb` or one of three font stacks, so nothing a brand sends is CSS of its own. Without `dark`,
 * the brand's colours hold in both schemes; with it, dark mode (`prefers-color-scheme`) takes those.
 */
export function brandCss(brand: Brand): string {
  const { colors, dark, font } = brand.document;
  const root = [...declarations(colors), ...(font && FONTS[font] ? [`--pc-font: ${FONTS[font]};`] : [])];
  if (colors && !dark) root.unshift('color-scheme: light;');
  let css = root.length ? `:root {\n  ${root.join('\n  ')}\n}\n` : '';
  if (dark) css += `@media (prefers-color-scheme: dark) {\n  :root {\n    ${declarations(dark).join('\n    ')}\n  }\n}\n`;
  return css;
}

function declarations(palette: Palette | undefined): string[] {
  if (!palette) return [];
  const out: string[] = [];
  for (const key of COLOR_KEYS) {
    const value = palette[key];
    if (!value) continue;
    out.push(`${COLOR_TOKENS[key]}: ${value};`);
    // The hover shade and focus ring follow the brand's primary (design.css derives nothing itself).
    if (key === 'primary') out.push(`--pc-primary-hover: ${value};`, `--pc-focus: ${value};`);
  }
  return out;
}

function query(brand: Brand, extra: Record<string, string>): string {
  const params = new URLSearchParams();
  if (brand.orgId) params.set('org', brand.orgId);
  if (brand.appId) params.set('app', brand.appId);
  if (brand.preview) params.set('preview', brand.preview);
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  return params.toString();
}

/** What a branded page adds to its head: its stylesheet after the design system's (same origin, as the CSP wants). */
export function brandHead(brand: Brand | undefined): string {
  if (!brand) return '';
  const { colors, dark, font } = brand.document;
  if (!colors && !dark && !font) return '';
  return `\n<link rel="stylesheet" href="${esc(`${BRAND_STYLESHEET_PATH}?${query(brand, { v: brand.version })}`)}" data-brand-stylesheet>`;
}

/** The page header's mark and name: the brand's logo (decorative, the name says it) and display name, if it has them. */
export function brandMark(brand: Brand | undefined): { mark?: string; name?: string } {
  if (!brand) return {};
  const mark = brand.logoFrom
    ? `<img class="pc-brand-logo" src="${esc(`${BRAND_LOGO_PATH}?${new URLSearchParams({ from: brand.logoFrom, v: brand.version, ...(brand.preview ? { preview: brand.preview } : {}) })}`)}" alt="" data-brand-logo>`
    : undefined;
  return { mark, name: brand.document.displayName };
}

/** The brand's links under the card, each https (checked when set). */
export function brandFooter(brand: Brand | undefined, labels: { privacy: string; terms: string; support: string }): string {
  const links = brand?.document.links;
  if (!links) return '';
  const items = (['privacy', 'terms', 'support'] as const)
    .filter((key) => links[key])
    .map((key) => `<a href="${esc(links[key]!)}" rel="noopener noreferrer" data-brand-link="${key}">${esc(labels[key])}</a>`);
  return items.length ? `<footer class="pc-brand-links">${items.join(' ')}</footer>` : '';
}

/** The routes of a brand's stylesheet and logo, beside the design system's. */
@Injectable()
export class BrandAssets {
  constructor(
    private readonly lookup: BrandLookup,
    private readonly dataSource: DataSource,
    private readonly previews: BrandingPreviews,
  ) {}

  routes(router: Router): void {
    router.get(BRAND_STYLESHEET_PATH, (req, res, next) => void this.stylesheet(req, res).catch(next));
    router.get(BRAND_LOGO_PATH, (req, res, next) => void this.logo(req, res).catch(next));
  }

  private async stylesheet(req: Request, res: Response): Promise<void> {
    const [org, app, preview] = [param(req, 'org'), param(req, 'app'), param(req, 'preview')];
    // A preview link's draft (docs/branding.md, "Preview"): never cached, gone when the link expires.
    const brand = preview ? await this.previews.brandOf(preview) : await this.lookup.brandOf(org, app);
    if (!brand) return void res.status(404).type('text/plain').send('not found');
    res.set({
      'Content-Type': 'text/css; charset=utf-8',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': preview ? 'no-store' : cacheFor(req, brand.version),
    });
    res.end(brandCss(brand));
  }

  /** The re-encoded PNG, never the upload; typed image/png, not sniffed, and no document if opened on its own. */
  private async logo(req: Request, res: Response): Promise<void> {
    const from = param(req, 'from');
    const png =
      from === PREVIEW_LOGO_FROM
        ? await this.previews.logo(param(req, 'preview'))
        : from && /^(instance|org:[\w-]+|app:[\w-]+)$/.test(from)
          ? await brandImage(this.dataSource.manager, from, 'logo')
          : undefined;
    if (!png) return void res.status(404).type('text/plain').send('not found');
    res.set({
      'Content-Type': 'image/png',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Content-Disposition': 'inline; filename="logo.png"',
      'Cache-Control': from === PREVIEW_LOGO_FROM ? 'no-store' : 'public, max-age=60',
    });
    res.end(png);
  }
}

function param(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === 'string' && value.length > 0 && value.length <= 64 ? value : undefined;
}

/** The URL carries the brand's version: the current one may be kept a year (a change is a new URL), another not at all. */
function cacheFor(req: Request, version: string): string {
  return param(req, 'v') === version ? 'public, max-age=31536000, immutable' : 'no-cache';
}
