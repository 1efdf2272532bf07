import { Injectable } from '@nestjs/common';
import type { Request, Response, Router } from 'express';
import { overridesOf } from '../branding/brand-lookup.js';
import { BRAND_PREVIEW_PATH, BrandingPreviews } from '../branding/branding-preview.js';
import { renderedWith } from '../branding/page-brand.js';
import { chooseLocale } from '../texts/locales.js';
import { contentSecurityPolicy } from './login-page.headers.js';
import { errorPage, esc, loginPage, registerPage } from './login.views.js';
import type { FormContext } from './login.views.js';
import { messages } from './messages.js';
import { secondFactorPage } from './second-factor.views.js';

/** The pages a preview link shows (`?page=`), as a sign-in shows them. */
const PAGES = {
  login: (ctx: FormContext) => loginPage(ctx, ''),
  register: (ctx: FormContext) => registerPage(ctx, {}),
  'second-factor': (ctx: FormContext) => secondFactorPage(ctx, ''),
  error: (ctx: FormContext) => errorPage(ctx.locale, ctx.t, 'access_denied'),
} as const;

/**
 * The CSP of a preview (docs/branding.md, "Preview"): the sign-in pages' own, styles and images from this origin
 * only, with no script and forms that go nowhere (`form-action 'none'`: nothing on a preview signs anyone in), and
 * framed by this origin alone, the console's editor.
 */
export const PREVIEW_CSP = contentSecurityPolicy("'none'")
  .replace(/form-action [^;]+/, "form-action 'none'")
  .replace("frame-ancestors 'none'", "frame-ancestors 'self'");

const PREVIEW_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'SAMEORIGIN',
  'X-Content-Type-Options': 'nosniff',
  'X-Robots-Tag': 'noindex',
  'Referrer-Policy': 'no-referrer',
  'Content-Security-Policy': PREVIEW_CSP,
};

/**
 * A preview link of a draft brand (docs/branding.md, "Preview"): a sign-in page with the draft's colours, logo, name,
 * links and texts, escaped like every page, under a notice that it is a preview; its forms post nowhere. Unknown or
 * expired links are 404.
 */
@Injectable()
export class BrandPreviewPage {
  constructor(private readonly previews: BrandingPreviews) {}

  routes(router: Router): void {
    router.get(`${BRAND_PREVIEW_PATH}/:token`, (req, res, next) => void this.show(req, res).catch(next));
  }

  private async show(req: Request, res: Response): Promise<void> {
    res.set(PREVIEW_HEADERS);
    const brand = await this.previews.brandOf(String(req.params.token));
    const lang = typeof req.query.lang === 'string' ? req.query.lang : undefined;
    const locale = chooseLocale(lang, req.headers['accept-language'], { organizationDefault: brand?.document.defaultLanguage });
    if (!brand) {
      res.status(404).end(errorPage(locale, messages(locale), 'not_found', 'this preview link is unknown or has expired'));
      return;
    }
    const kind = typeof req.query.page === 'string' && Object.hasOwn(PAGES, req.query.page) ? (req.query.page as keyof typeof PAGES) : 'login';
    const t = messages(locale, overridesOf(brand, locale));
    const html = renderedWith(brand, () => PAGES[kind]({ action: '#', csrf: '', t, locale }));
    const notice = `<p class="pc-alert" role="status" data-brand-preview>${esc(t.brandPreview)}</p>`;
    res.end(html.replace('<main class="pc-card', `${notice}<main class="pc-card`));
  }
}
