import { Inject, Injectable, Logger } from '@nestjs/common';
import express from 'express';
import type { Request, Response, Router } from 'express';
import { BrandLookup, overridesOf } from '../branding/brand-lookup.js';
import type { Brand } from '../branding/brand-lookup.js';
import { renderedWith } from '../branding/page-brand.js';
import { SecretHasher } from '../common/crypto/secret-hasher.js';
import { DatabaseAvailability } from '../common/database/database-availability.js';
import { isDatabaseUnavailable } from '../common/database/database-unavailable.js';
import { setErrorHeaders } from '../common/http/error-headers.js';
import { invalidTextPath } from '../common/text/valid-text.js';
import { contentSecurityPolicy } from './login-page.headers.js';
import { errorPage } from './login.views.js';
import type { FormContext } from './login.views.js';
import { CsrfError, InteractionMismatchError, securityHeaders } from './login-ui.http.js';
import { messages } from './messages.js';
import type { Messages } from './messages.js';
import type { BoundaryClient } from './organization-boundary.js';
import { chooseLocale } from '../texts/locales.js';
import { pendingOf } from './pending-sign-in.js';
import { SIGN_IN_PROTOCOL } from './sign-in-protocol.js';
import type { Interaction, SignInProtocol } from './sign-in-protocol.js';
import { LOGIN_UI_PREFIX } from './ui-paths.js';

export type { Interaction, LoginResult } from './sign-in-protocol.js';

export type Handler = (req: Request, res: Response) => Promise<void>;
/** A page or form of the login UI, with its security headers, its text checked and its failures answered as pages. */
export type Wrap = (fn: Handler) => express.RequestHandler;
/** A form post of a sign-in step, after its interaction and CSRF value were checked. */
export type Step = (req: Request, res: Response, interaction: Interaction) => Promise<void>;

/**
 * The parts of the login UI every page shares: the interaction of this browser, its forms' CSRF values,
 * rendering and the pages of errors.
 */
@Injectable()
export class LoginInteractions {
  private readonly logger = new Logger('login-ui');
  /** The interaction each request found (details), for the brand of a page built without a form context. */
  private readonly opened = new WeakMap<Request, Interaction>();
  /** The brand each request's pages show, once read (pageBrandOf). */
  private readonly brandsOf = new WeakMap<Request, Brand>();

  constructor(
    @Inject(SIGN_IN_PROTOCOL) private readonly protocol: SignInProtocol,
    private readonly hasher: SecretHasher,
    private readonly availability: DatabaseAvailability,
    private readonly brands: BrandLookup,
  ) {}

  readonly wrap: Wrap = (fn) => (req, res) => {
    securityHeaders(res);
    // A NUL in a form field, refused on every surface (src/common/text/valid-text.ts): before any step reads it.
    if (req.body !== undefined && invalidTextPath(req.body) !== undefined) {
      return this.errorResponse(req, res, 400, 'invalid_request', 'the form holds text that is not valid Unicode (a NUL character); nothing was changed');
    }
    fn(req, res).catch((error: unknown) => this.fail(req, res, error));
  };

  /** The form posts of sign-in steps under `/ui/login/{uid}/`, each after its interaction and CSRF value were checked. */
  postSteps(router: Router, steps: Record<string, Step>, limit = '32kb'): void {
    const form = express.urlencoded({ extended: false, limit });
    for (const [path, step] of Object.entries(steps)) {
      router.post(
        `${LOGIN_UI_PREFIX}/:uid/${path}`,
        form,
        this.wrap(async (req, res) => {
          const interaction = await this.details(req, res);
          this.assertCsrf(req, interaction);
          await step(req, res, interaction);
        }),
      );
    }
  }

  /**
   * The interaction of this browser (the protocol finds it by its cookie). The uid in the path must
   * name that same interaction: a page is never shown, nor a form accepted, under another uid.
   */
  async details(req: Request, res: Response): Promise<Interaction> {
    const interaction = await this.protocol.interaction(req, res);
    if (interaction.uid !== req.params.uid) throw new InteractionMismatchError();
    // A finished step redirects through the authorization endpoint to the client's redirect URI.
    res.setHeader('Content-Security-Policy', contentSecurityPolicy("'self'", [interaction.params.redirect_uri]));
    // The page's brand is read when a page is rendered (formContext, showError): a post that only redirects reads none.
    this.opened.set(req, interaction);
    return interaction;
  }

  /**
   * The brand of the client's pages: its application's, over its organization's, over the instance's (docs/branding.md).
   * Read once per request, by the first page rendered, from the client the caller found already or else the interaction's.
   */
  private async pageBrandOf(req: Request, interaction: Interaction, client?: BoundaryClient): Promise<Brand> {
    const known = this.brandsOf.get(req);
    if (known) return known;
    const owner = client ?? (await this.protocol.clientOf(interaction));
    const brand = await this.brands.brandOf(owner?.portcullis_org_id, owner?.portcullis_app_id);
    this.brandsOf.set(req, brand);
    return brand;
  }

  /**
   * What a page's form needs, in the page's language and brand. `client`: the interaction's client when the caller
   * found it already, handed on so that the brand costs no second look-up.
   */
  async formContext(req: Request, interaction: Interaction, step: string, client?: BoundaryClient): Promise<FormContext> {
    const brand = await this.pageBrandOf(req, interaction, client);
    const locale = chooseLocale(interaction.params.ui_locales, req.headers['accept-language'], {
      preferredLanguage: pendingOf(interaction)?.language,
      organizationDefault: brand?.document.defaultLanguage,
    });
    const t = messages(locale, overridesOf(brand, locale));
    return { action: `${LOGIN_UI_PREFIX}/${interaction.uid}/${step}`, csrf: this.hasher.hash(`csrf:${interaction.uid}`), t, locale };
  }

  assertCsrf(req: Request, interaction: Interaction): void {
    const sent = typeof req.body?.csrf === 'string' ? req.body.csrf : '';
    if (!this.hasher.matches(`csrf:${interaction.uid}`, sent)) throw new CsrfError();
  }

  /**
   * The page in one `end`, Content-Length set by Node: Express's `send` would also hash the body for
   * an ETag, useless on pages that are never cached (Cache-Control: no-store).
   */
  render(res: Response, view: () => string): void {
    // In the brand this request found, if it found one (src/branding/page-brand.ts).
    const html = renderedWith(this.brandsOf.get(res.req), view);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(html);
  }

  /** Keeps a step's state in the interaction until the sign-in finishes (the provider ignores it). */
  async keep(interaction: Interaction, key: string, state: object): Promise<void> {
    interaction.result = { [key]: state };
    await interaction.persist();
  }

  /**
   * A page that tells the user what went wrong with this request (the sign-in itself goes on or starts again), in the
   * browser's language (no interaction may be at hand), and in the brand of its client once its interaction is known.
   */
  async showError(req: Request, res: Response, status: number, error: string, description: string | ((t: Messages) => string)): Promise<void> {
    await this.findBrand(req);
    this.errorResponse(req, res, status, error, description);
  }

  /**
   * Reads this request's brand before a page is built without a form context (an error page, a first contact). A brand
   * that cannot be read (the database may be what failed) leaves the page in the instance's look: it still shows.
   */
  async findBrand(req: Request): Promise<void> {
    const interaction = this.opened.get(req);
    if (interaction) await this.pageBrandOf(req, interaction).catch(() => undefined);
  }

  private errorResponse(req: Request, res: Response, status: number, error: string, description: string | ((t: Messages) => string)): void {
    const locale = chooseLocale(undefined, req.headers['accept-language']);
    const t = messages(locale);
    res.status(status);
    this.render(res, () => errorPage(locale, t, error, typeof description === 'string' ? description : description(t)));
  }

  async fail(req: Request, res: Response, error: unknown): Promise<void> {
    const known = error as { name?: string; error?: string; status?: number; error_description?: string };
    if (error instanceof CsrfError) return this.showError(req, res, 403, 'invalid_request', 'the form has expired; start again');
    // oidc-provider errors (e.g. an expired interaction or a missing interaction cookie).
    if (known.error) return this.showError(req, res, known.status ?? 400, known.error, known.error_description ?? '');
    // An outage (the database down, a Galera node without quorum): 503 with Retry-After, as on every surface.
    if (isDatabaseUnavailable(error)) {
      this.availability.reportUnavailable(error);
      setErrorHeaders(res, 503);
      // No brand is read now: the database is what failed.
      return this.errorResponse(req, res, 503, 'temporarily_unavailable', 'the service cannot reach its database; try again in a few seconds');
    }
    this.logger.error(`login UI failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await this.findBrand(req);
    const locale = chooseLocale(undefined, req.headers['accept-language']);
    res.status(500);
    this.render(res, () => errorPage(locale, messages(locale), 'server_error'));
  }
}
