import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { SecretHasher } from '../common/crypto/secret-hasher.js';
import { DatabaseAvailability } from '../common/database/database-availability.js';
import { isDatabaseUnavailable } from '../common/database/database-unavailable.js';
import { setErrorHeaders } from '../common/http/error-headers.js';
import { ProviderHolder } from '../oidc/provider/provider.holder.js';
import { LOGIN_UI_PREFIX } from '../oidc/provider/oidc.routes.js';
import { KNOWN_ACCOUNTS_COOKIE, KnownAccounts } from './known-accounts.js';
import type { KnownAccount } from './known-accounts.js';
import { contentSecurityPolicy } from './login-page.headers.js';
import { errorPage } from './login.views.js';
import type { FormContext } from './login.views.js';
import { CsrfError, InteractionMismatchError } from './login-ui.http.js';
import { chooseLocale, messages } from './messages.js';

export interface Interaction {
  uid: string;
  prompt: { name: string; reasons: string[] };
  params: Record<string, string | undefined>;
  session?: { accountId?: string; amr?: string[]; acr?: string };
  returnTo: string;
  grantId?: string;
  /** Set on the sign-in of a device flow (RFC 8628): the device code the user is approving. */
  deviceCode?: string;
  result?: Record<string, unknown>;
  /** Saves the interaction for the rest of its lifetime (oidc-provider's Interaction model). */
  persist(): Promise<unknown>;
}

/** What `finish` stores for the provider: who signed in, when, and how (RFC 8176 `amr`, and `acr`). */
export interface LoginResult {
  accountId: string;
  ts: number;
  amr: string[];
  acr: string;
}

/**
 * The parts of the login UI every step shares: the interaction of this browser, its forms' CSRF
 * values, rendering, completion and failure pages.
 */
@Injectable()
export class LoginInteractions {
  private readonly logger = new Logger('login-ui');
  readonly known: KnownAccounts;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly holder: ProviderHolder,
    private readonly hasher: SecretHasher,
    private readonly availability: DatabaseAvailability,
  ) {
    this.known = new KnownAccounts(hasher);
  }

  /**
   * The interaction of this browser (oidc-provider finds it by its cookie). The uid in the path must
   * name that same interaction: a page is never shown, nor a form accepted, under another uid.
   */
  async details(req: Request, res: Response): Promise<Interaction> {
    const interaction: Interaction = await this.holder.provider.interactionDetails(req, res);
    if (interaction.uid !== req.params.uid) throw new InteractionMismatchError();
    // A finished step redirects through the authorization endpoint to the client's redirect URI.
    res.setHeader('Content-Security-Policy', contentSecurityPolicy("'self'", [interaction.params.redirect_uri]));
    return interaction;
  }

  formContext(req: Request, interaction: Interaction, step: string): FormContext {
    const locale = chooseLocale(interaction.params.ui_locales, req.headers['accept-language']);
    return { action: `${LOGIN_UI_PREFIX}/${interaction.uid}/${step}`, csrf: this.hasher.hash(`csrf:${interaction.uid}`), t: messages(locale), locale };
  }

  assertCsrf(req: Request, interaction: Interaction): void {
    const sent = typeof req.body?.csrf === 'string' ? req.body.csrf : '';
    if (!this.hasher.matches(`csrf:${interaction.uid}`, sent)) throw new CsrfError();
  }

  /**
   * The page in one `end`, Content-Length set by Node: Express's `send` would also hash the body for
   * an ETag, useless on pages that are never cached (Cache-Control: no-store).
   */
  render(res: Response, html: string): void {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(html);
  }

  /** Keeps a step's state in the interaction until the sign-in finishes (the provider ignores it). */
  async keep(interaction: Interaction, key: string, state: object): Promise<void> {
    interaction.result = { [key]: state };
    await interaction.persist();
  }

  /**
   * Completes the interaction. Every custom prompt counts as answered by this step, and consent is
   * given on the user's behalf: clients are registered by this instance's administrators (docs/product-rules.md, "OpenID Connect and OAuth").
   */
  async finish(req: Request, res: Response, interaction: Interaction, login?: LoginResult, account?: KnownAccount): Promise<void> {
    if (account) {
      const accounts = this.known.add(this.known.parse(req.headers.cookie), account);
      res.cookie(KNOWN_ACCOUNTS_COOKIE, this.known.serialize(accounts), { httpOnly: true, sameSite: 'lax', path: '/', secure: this.config.publicUrl.startsWith('https:'), maxAge: 90 * 24 * 3600 * 1000 });
    }
    const accountId = login?.accountId ?? interaction.session?.accountId;
    const grantId = accountId ? await this.grantFor(interaction, accountId) : undefined;
    // What provider.interactionFinished does, on the interaction this request already loaded (it would
    // look it up again): store the result, send the browser back to the authorization endpoint.
    interaction.result = { ...(login ? { login } : {}), select_account: {}, create: {}, ...(grantId ? { consent: { grantId } } : {}) };
    await interaction.persist();
    res.status(303).location(interaction.returnTo).set('Content-Length', '0').end();
  }

  /** The grant of what the client requested (the same rule as loadExistingGrant in provider.factory.ts). */
  private async grantFor(interaction: Interaction, accountId: string): Promise<string> {
    const { Grant } = this.holder.provider;
    const sameAccount = interaction.session?.accountId === accountId;
    const existing = sameAccount && interaction.grantId ? await Grant.find(interaction.grantId) : undefined;
    const grant = existing ?? new Grant({ clientId: interaction.params.client_id, accountId });
    grant.addOIDCScope(interaction.params.scope ?? 'openid');
    return grant.save();
  }

  /**
   * Ends the sign-in with access_denied (OIDC Core §3.1.2.6), through the provider: the browser goes back to the
   * interaction's return URL, where oidc-provider turns the result into the error. For a device flow that denies the
   * device code, so the device hears access_denied at its next poll (RFC 8628 §3.5) instead of polling until the code
   * expires, and the user sees the device's denied page (device-flow.ts).
   */
  async deny(res: Response, interaction: Interaction, description: string): Promise<void> {
    interaction.result = { error: 'access_denied', error_description: description };
    await interaction.persist();
    res.status(303).location(interaction.returnTo).set('Content-Length', '0').end();
  }

  /** A page that ends this sign-in with an error the user can read. */
  refuse(req: Request, res: Response, status: number, error: string, description: string): void {
    const locale = chooseLocale(undefined, req.headers['accept-language']);
    res.status(status);
    this.render(res, errorPage(locale, messages(locale), error, description));
  }

  fail(req: Request, res: Response, error: unknown): void {
    const known = error as { name?: string; error?: string; status?: number; error_description?: string };
    if (error instanceof CsrfError) return this.refuse(req, res, 403, 'invalid_request', 'the form has expired; start again');
    // oidc-provider errors (e.g. an expired interaction or a missing interaction cookie).
    if (known.error) return this.refuse(req, res, known.status ?? 400, known.error, known.error_description ?? '');
    // An outage (the database down, a Galera node without quorum): 503 with Retry-After, as on every surface.
    if (isDatabaseUnavailable(error)) {
      this.availability.reportUnavailable(error);
      setErrorHeaders(res, 503);
      return this.refuse(req, res, 503, 'temporarily_unavailable', 'the service cannot reach its database; try again in a few seconds');
    }
    this.logger.error(`login UI failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    const locale = chooseLocale(undefined, req.headers['accept-language']);
    res.status(500);
    this.render(res, errorPage(locale, messages(locale), 'server_error'));
  }
}
